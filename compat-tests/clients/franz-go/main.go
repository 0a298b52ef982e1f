// A user's session with franz-go against a broker.
//
// Usage: scenario BOOTSTRAP RECORDS
//
// Creates a topic of three partitions, produces RECORDS keyed records with a header (idempotent,
// acks=all, zstd), reads them in a consumer group and commits, produces half as many again
// (snappy) and checks that the group resumes with exactly those, then checks the group's offsets,
// end offsets, offsets by time, the topic's configs, the group as the admin client sees it, and
// deletes the topic. Prints "OK ..." and exits 0, or prints "FAIL <why>" and exits 1.
package main

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func fail(format string, a ...any) {
	fmt.Println("FAIL", fmt.Sprintf(format, a...))
	os.Exit(1)
}

func value(i int) string { return fmt.Sprintf("v-%d-", i) + strings.Repeat("x", i%200) }

func main() {
	bootstrap := os.Args[1]
	n, _ := strconv.Atoi(os.Args[2])
	run := fmt.Sprintf("%08x", rand.Uint32())
	topic, group := "go-"+run, "go-group-"+run
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()

	adm, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	if err != nil {
		fail("client %v", err)
	}
	admin := kadm.NewClient(adm)
	if _, err := admin.CreateTopic(ctx, 3, 1, nil, topic); err != nil {
		fail("create %v", err)
	}
	produce := func(start, count int, codec kgo.CompressionCodec) {
		p, _ := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic(topic),
			kgo.ProducerBatchCompression(codec), kgo.RequiredAcks(kgo.AllISRAcks()))
		defer p.Close()
		for i := start; i < start+count; i++ {
			p.Produce(ctx, &kgo.Record{Key: []byte(fmt.Sprintf("k-%d", i)), Value: []byte(value(i)),
				Headers: []kgo.RecordHeader{{Key: "i", Value: []byte(strconv.Itoa(i))}}},
				func(r *kgo.Record, err error) {
					if err != nil {
						fail("produce %v", err)
					}
				})
		}
		if err := p.Flush(ctx); err != nil {
			fail("flush %v", err)
		}
	}
	consume := func(from, to int) {
		c, _ := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
			kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		seen := map[int]bool{}
		last := map[int32]int64{}
		deadline := time.Now().Add(60 * time.Second)
		for len(seen) < to-from && time.Now().Before(deadline) {
			pctx, pc := context.WithTimeout(ctx, 2*time.Second)
			fs := c.PollFetches(pctx)
			pc()
			fs.EachError(func(t string, p int32, err error) {
				if err != context.DeadlineExceeded {
					fail("fetch %s/%d: %v", t, p, err)
				}
			})
			fs.EachRecord(func(r *kgo.Record) {
				i, _ := strconv.Atoi(string(r.Key[2:]))
				if i < from || i >= to || seen[i] {
					fail("record %d is a duplicate or was not expected", i)
				}
				if string(r.Value) != value(i) || string(r.Headers[0].Value) != strconv.Itoa(i) {
					fail("content of %d", i)
				}
				if l, ok := last[r.Partition]; ok && l >= r.Offset {
					fail("offsets not increasing")
				}
				last[r.Partition] = r.Offset
				seen[i] = true
			})
			if err := c.CommitUncommittedOffsets(ctx); err != nil {
				fail("commit %v", err)
			}
		}
		c.Close()
		if len(seen) != to-from {
			fail("got %d of %d", len(seen), to-from)
		}
	}
	produce(0, n, kgo.ZstdCompression())
	consume(0, n)
	produce(n, n/2, kgo.SnappyCompression())
	consume(n, n+n/2)
	offs, err := admin.FetchOffsets(ctx, group)
	if err != nil {
		fail("fetch offsets %v", err)
	}
	var sum int64
	offs.Each(func(o kadm.OffsetResponse) { sum += o.At })
	ends, err := admin.ListEndOffsets(ctx, topic)
	if err != nil {
		fail("end offsets %v", err)
	}
	var end int64
	ends.Each(func(o kadm.ListedOffset) { end += o.Offset })
	if sum != int64(n+n/2) || end != int64(n+n/2) {
		fail("committed %d end %d", sum, end)
	}
	byTime, err := admin.ListOffsetsAfterMilli(ctx, 0, topic)
	if err != nil {
		fail("offsets by time %v", err)
	}
	byTime.Each(func(o kadm.ListedOffset) {
		if o.Offset != 0 && ends[topic][o.Partition].Offset != 0 {
			fail("offset by time of partition %d: %d", o.Partition, o.Offset)
		}
	})
	configs, err := admin.DescribeTopicConfigs(ctx, topic)
	if err != nil {
		fail("describe configs %v", err)
	}
	policy, err := configs.On(topic, nil)
	if err != nil {
		fail("configs of %s: %v", topic, err)
	}
	found := false
	for _, c := range policy.Configs {
		if c.Key == "cleanup.policy" && c.Value != nil && *c.Value == "delete" {
			found = true
		}
	}
	if !found {
		fail("cleanup.policy missing: %+v", policy.Configs)
	}
	groups, err := admin.DescribeGroups(ctx, group)
	if err != nil {
		fail("describe group %v", err)
	}
	if g := groups[group]; g.State != "Empty" || len(g.Members) != 0 {
		fail("group %s state %s members %d", group, g.State, len(g.Members))
	}
	if _, err := admin.DeleteTopics(ctx, topic); err != nil {
		fail("delete %v", err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		md, err := admin.ListTopics(ctx)
		if err != nil {
			fail("list topics %v", err)
		}
		if !md.Has(topic) {
			break
		}
		if time.Now().After(deadline) {
			fail("topic still listed 20 s after its deletion")
		}
	}
	fmt.Printf("OK franz-go: %d records on %s\n", n+n/2, topic)
}
