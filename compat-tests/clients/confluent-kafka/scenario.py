"""A user's session with confluent-kafka (librdkafka) against a broker.

Usage: scenario.py BOOTSTRAP RECORDS [classic|consumer]

Creates a topic of three partitions, produces RECORDS keyed records with a header (idempotent,
acks=all, zstd), reads them in a consumer group (the classic protocol or KIP-848's) and commits,
produces half as many again (lz4) and checks that the group resumes with exactly those, then
checks watermarks, offsets by time, the topic's configs, the group as the admin client sees it,
and deletes the topic. Prints "OK ..." and exits 0, or prints "FAIL <why>" and exits 1.
"""

import sys
import time
import uuid

from confluent_kafka import (
    Consumer,
    ConsumerGroupTopicPartitions,
    KafkaError,
    Producer,
    TopicPartition,
)
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, ResourceType

BOOTSTRAP, N = sys.argv[1], int(sys.argv[2])
PROTOCOL = sys.argv[3] if len(sys.argv) > 3 else "classic"
RUN = uuid.uuid4().hex[:8]
TOPIC, GROUP = f"py-{RUN}", f"py-group-{RUN}"
PARTITIONS = 3


def fail(why):
    print("FAIL", why, flush=True)
    sys.exit(1)


def value(i):
    return f"v-{i}-" + "x" * (i % 200)


def produce(start, count, codec):
    producer = Producer(
        {
            "bootstrap.servers": BOOTSTRAP,
            "enable.idempotence": True,
            "acks": "all",
            "compression.type": codec,
            "linger.ms": 5,
        }
    )
    errors = []

    def delivered(err, _msg):
        if err:
            errors.append(err)

    for i in range(start, start + count):
        producer.produce(
            TOPIC,
            key=f"k-{i}",
            value=value(i),
            headers=[("i", str(i).encode())],
            on_delivery=delivered,
        )
        producer.poll(0)
    left = producer.flush(30)
    if left or errors:
        fail(f"produce: {left} undelivered, errors {errors[:3]}")


def consume(first, end, timeout=60):
    """Reads records first..end-1 in the group, exactly once each, commits, and closes."""
    config = {
        "bootstrap.servers": BOOTSTRAP,
        "group.id": GROUP,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
    }
    if PROTOCOL == "consumer":
        config["group.protocol"] = "consumer"
    consumer = Consumer(config)
    consumer.subscribe([TOPIC])
    seen, last = set(), {}
    deadline = time.time() + timeout
    while len(seen) < end - first and time.time() < deadline:
        msg = consumer.poll(1.0)
        if msg is None:
            continue
        if msg.error():
            if msg.error().code() == KafkaError._PARTITION_EOF:
                continue
            fail(f"consume: {msg.error()}")
        i = int(msg.key().decode()[2:])
        if not first <= i < end or i in seen:
            fail(f"record {i} is a duplicate or was not expected")
        if msg.value().decode() != value(i):
            fail(f"value of record {i}")
        if dict(msg.headers() or [])["i"] != str(i).encode():
            fail(f"header of record {i}")
        if last.get(msg.partition(), -1) >= msg.offset():
            fail(f"offsets of partition {msg.partition()} do not increase")
        last[msg.partition()] = msg.offset()
        seen.add(i)
    if len(seen) != end - first:
        fail(f"read {len(seen)} of {end - first} records")
    extra = consumer.poll(2.0)
    if extra is not None and not extra.error():
        fail(f"unexpected record {extra.key()}")
    consumer.commit(asynchronous=False)
    committed = consumer.committed(
        [TopicPartition(TOPIC, p) for p in range(PARTITIONS)], timeout=10
    )
    consumer.close()
    if sum(tp.offset for tp in committed) != end:
        fail(f"committed offsets {committed}")


def main():
    admin = AdminClient({"bootstrap.servers": BOOTSTRAP})
    new = NewTopic(TOPIC, num_partitions=PARTITIONS, replication_factor=1)
    admin.create_topics([new])[TOPIC].result(timeout=30)
    if len(admin.list_topics(TOPIC, timeout=10).topics[TOPIC].partitions) != PARTITIONS:
        fail("partitions of the new topic")

    total = N + N // 2
    produce(0, N, "zstd")
    consume(0, N)
    produce(N, N // 2, "lz4")
    consume(N, total)

    request = [ConsumerGroupTopicPartitions(GROUP)]
    offsets = admin.list_consumer_group_offsets(request)[GROUP].result(timeout=10)
    if sum(tp.offset for tp in offsets.topic_partitions) != total:
        fail(f"group offsets as the admin client lists them {offsets.topic_partitions}")

    probe = Consumer({"bootstrap.servers": BOOTSTRAP, "group.id": GROUP + "-probe"})
    marks = [probe.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=10) for p in range(3)]
    if sum(hi for _, hi in marks) != total or any(lo != 0 for lo, _ in marks):
        fail(f"watermarks {marks}")
    since_epoch = probe.offsets_for_times(
        [TopicPartition(TOPIC, p, 0) for p in range(PARTITIONS)], timeout=10
    )
    if any(tp.offset != 0 for tp in since_epoch if marks[tp.partition][1] > 0):
        fail(f"offsets_for_times(0) {since_epoch}")
    in_an_hour = int(time.time() * 1000) + 3_600_000
    future = probe.offsets_for_times(
        [TopicPartition(TOPIC, p, in_an_hour) for p in range(PARTITIONS)], timeout=10
    )
    if any(tp.offset != -1 for tp in future):
        fail(f"offsets_for_times(in an hour) {future}")
    probe.close()

    resource = ConfigResource(ResourceType.TOPIC, TOPIC)
    configs = admin.describe_configs([resource])[resource].result(timeout=10)
    if configs["cleanup.policy"].value != "delete":
        fail(f"cleanup.policy {configs['cleanup.policy'].value}")
    groups = admin.list_consumer_groups().result(timeout=10)
    if GROUP not in [g.group_id for g in groups.valid]:
        fail(f"group not listed: {groups.valid}")
    group = admin.describe_consumer_groups([GROUP])[GROUP].result(timeout=10)
    if group.state.name != "EMPTY" or group.members:
        fail(f"group state {group.state}, members {group.members}")

    admin.delete_topics([TOPIC])[TOPIC].result(timeout=30)
    deadline = time.time() + 20
    while TOPIC in admin.list_topics(timeout=10).topics:
        if time.time() > deadline:
            fail("topic still listed 20 s after its deletion")
        time.sleep(0.2)
    print(f"OK confluent-kafka ({PROTOCOL} group): {total} records on {TOPIC}", flush=True)


if __name__ == "__main__":
    main()
