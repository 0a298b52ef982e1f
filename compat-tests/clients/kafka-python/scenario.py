"""A user's session with kafka-python (the pure-Python client) against a broker.

Usage: scenario.py BOOTSTRAP RECORDS

Creates a topic of three partitions, produces RECORDS keyed records with a header (acks=all,
gzip), reads them in a consumer group and commits, produces half as many again and checks that
the group resumes with exactly those, then checks the group's offsets and state as the admin
client sees them, the end offsets, and deletes the topic. Prints "OK ..." and exits 0, or prints
"FAIL <why>" and exits 1.
"""

import sys
import time
import uuid

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import NewTopic

BOOTSTRAP, N = sys.argv[1], int(sys.argv[2])
RUN = uuid.uuid4().hex[:8]
TOPIC, GROUP = f"kp-{RUN}", f"kp-group-{RUN}"
PARTITIONS = 3


def fail(why):
    print("FAIL", why, flush=True)
    sys.exit(1)


def value(i):
    return (f"v-{i}-" + "x" * (i % 200)).encode()


def produce(start, count):
    producer = KafkaProducer(
        bootstrap_servers=BOOTSTRAP, acks="all", compression_type="gzip", linger_ms=5
    )
    futures = [
        producer.send(
            TOPIC, key=f"k-{i}".encode(), value=value(i), headers=[("i", str(i).encode())]
        )
        for i in range(start, start + count)
    ]
    producer.flush(30)
    for f in futures:
        f.get(timeout=30)  # raises if the record was not acknowledged
    producer.close()


def consume(first, end):
    """Reads records first..end-1 in the group, exactly once each, commits, and closes."""
    consumer = KafkaConsumer(
        TOPIC,
        bootstrap_servers=BOOTSTRAP,
        group_id=GROUP,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    seen, last = set(), {}
    deadline = time.time() + 60
    while len(seen) < end - first and time.time() < deadline:
        for tp, records in consumer.poll(timeout_ms=1000).items():
            for r in records:
                i = int(r.key.decode()[2:])
                if not first <= i < end or i in seen:
                    fail(f"record {i} is a duplicate or was not expected")
                if r.value != value(i) or dict(r.headers)["i"] != str(i).encode():
                    fail(f"content of record {i}")
                if last.get(tp.partition, -1) >= r.offset:
                    fail(f"offsets of partition {tp.partition} do not increase")
                last[tp.partition] = r.offset
                seen.add(i)
    if len(seen) != end - first:
        fail(f"read {len(seen)} of {end - first} records")
    if any(consumer.poll(timeout_ms=2000).values()):
        fail("unexpected records after all were read")
    consumer.commit()
    consumer.close()


def main():
    admin = KafkaAdminClient(bootstrap_servers=BOOTSTRAP)
    admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)])
    total = N + N // 2
    produce(0, N)
    consume(0, N)
    produce(N, N // 2)
    consume(N, total)

    offsets = admin.list_group_offsets(GROUP)[GROUP]
    if sum(o.offset for o in offsets.values()) != total:
        fail(f"group offsets {offsets}")
    group = admin.describe_groups([GROUP])[GROUP]
    if group["group_state"] != "Empty" or group["members"]:
        fail(f"group {group}")
    probe = KafkaConsumer(bootstrap_servers=BOOTSTRAP)
    ends = probe.end_offsets([TopicPartition(TOPIC, p) for p in range(PARTITIONS)])
    probe.close()
    if sum(ends.values()) != total:
        fail(f"end offsets {ends}")
    admin.delete_topics([TOPIC])
    deadline = time.time() + 20
    while TOPIC in admin.list_topics():
        if time.time() > deadline:
            fail("topic still listed 20 s after its deletion")
        time.sleep(0.2)
    admin.close()
    print(f"OK kafka-python: {total} records on {TOPIC}", flush=True)


if __name__ == "__main__":
    main()
