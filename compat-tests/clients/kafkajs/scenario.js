// A user's session with kafkajs against a broker.
//
// Usage: node scenario.js BOOTSTRAP RECORDS
//
// Creates a topic of three partitions, produces RECORDS keyed records with a header (idempotent,
// acks=all, gzip), reads them in a consumer group committing each offset, produces half as many
// again and checks that the group resumes with exactly those, then checks the group's offsets,
// end offsets, offsets by time, the topic's configs, the group as the admin client sees it, and
// deletes the topic. Prints "OK ..." and exits 0, or prints "FAIL <why>" and exits 1.
'use strict';
process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
const { Kafka, CompressionTypes, ConfigResourceTypes, logLevel } = require('kafkajs');

const [bootstrap, records] = process.argv.slice(2);
const n = parseInt(records, 10);
const run = Math.random().toString(16).slice(2, 10);
const topic = `js-${run}`;
const group = `js-group-${run}`;
const kafka = new Kafka({ clientId: 'kelp-compat', brokers: [bootstrap], logLevel: logLevel.WARN });

function fail(why) {
  console.log('FAIL', why);
  process.exit(1);
}
const value = (i) => `v-${i}-` + 'x'.repeat(i % 200);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function produce(start, count) {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  for (let s = start; s < start + count; s += 100) {
    const messages = [];
    for (let i = s; i < Math.min(s + 100, start + count); i++) {
      messages.push({ key: `k-${i}`, value: value(i), headers: { i: String(i) } });
    }
    await producer.send({ topic, acks: -1, compression: CompressionTypes.GZIP, messages });
  }
  await producer.disconnect();
}

// Reads records first..end-1 in the group, exactly once each, committing each one's offset.
async function consume(first, end) {
  const consumer = kafka.consumer({ groupId: group, sessionTimeout: 10000, heartbeatInterval: 1000 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const seen = new Set();
  const last = new Map();
  let unexpected = [];
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ partition, message }) => {
      const i = parseInt(message.key.toString().slice(2), 10);
      if (i < first || i >= end || seen.has(i)) {
        unexpected.push(i);
        return;
      }
      if (message.value.toString() !== value(i)) fail(`value of record ${i}`);
      if (message.headers.i.toString() !== String(i)) fail(`header of record ${i}`);
      const offset = BigInt(message.offset);
      if (last.has(partition) && last.get(partition) >= offset) fail(`offsets of partition ${partition} do not increase`);
      last.set(partition, offset);
      seen.add(i);
      await consumer.commitOffsets([{ topic, partition, offset: (offset + 1n).toString() }]);
    },
  });
  const deadline = Date.now() + 60000;
  while (seen.size < end - first && Date.now() < deadline) await sleep(200);
  await sleep(2000); // anything more would arrive now
  await consumer.disconnect();
  if (seen.size !== end - first) fail(`read ${seen.size} of ${end - first} records`);
  if (unexpected.length) fail(`duplicate or unexpected records ${unexpected.slice(0, 5)}`);
}

async function main() {
  const admin = kafka.admin();
  await admin.connect();
  const created = await admin.createTopics({
    topics: [{ topic, numPartitions: 3, replicationFactor: 1 }],
    waitForLeaders: true,
  });
  if (!created) fail('the topic was not created');
  const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
  if (metadata.topics[0].partitions.length !== 3) fail('partitions of the new topic');

  const total = n + n / 2;
  await produce(0, n);
  await consume(0, n);
  await produce(n, n / 2);
  await consume(n, total);

  const offsets = await admin.fetchOffsets({ groupId: group, topics: [topic] });
  const committed = offsets[0].partitions.reduce((sum, p) => sum + parseInt(p.offset, 10), 0);
  if (committed !== total) fail(`committed offsets add up to ${committed}`);
  const ends = await admin.fetchTopicOffsets(topic);
  if (ends.reduce((sum, p) => sum + parseInt(p.high, 10), 0) !== total) fail(`end offsets ${JSON.stringify(ends)}`);
  const byTime = await admin.fetchTopicOffsetsByTimestamp(topic, 0);
  for (const p of byTime) {
    const high = ends.find((e) => e.partition === p.partition).high;
    if (high !== '0' && p.offset !== '0') fail(`offsets by time ${JSON.stringify(byTime)}`);
  }
  const configs = await admin.describeConfigs({
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }],
    includeSynonyms: false,
  });
  const policy = configs.resources[0].configEntries.find((e) => e.configName === 'cleanup.policy');
  if (!policy || policy.configValue !== 'delete') fail(`cleanup.policy ${JSON.stringify(policy)}`);
  const groups = await admin.listGroups();
  if (!groups.groups.some((g) => g.groupId === group)) fail('group not listed');
  const described = (await admin.describeGroups([group])).groups[0];
  if (described.state !== 'Empty' || described.members.length) fail(`group ${JSON.stringify(described)}`);

  await admin.deleteTopics({ topics: [topic], timeout: 30000 });
  const deadline = Date.now() + 20000;
  while ((await admin.listTopics()).includes(topic)) {
    if (Date.now() > deadline) fail('topic still listed 20 s after its deletion');
    await sleep(200);
  }
  await admin.disconnect();
  console.log(`OK kafkajs: ${total} records on ${topic}`);
}

main().catch((e) => fail(e.stack));
