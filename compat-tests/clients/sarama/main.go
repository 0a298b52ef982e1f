// A user's session with sarama (IBM/sarama) against a broker.
//
// Usage: scenario BOOTSTRAP RECORDS [KAFKA_VERSION]
//
// KAFKA_VERSION is the broker version sarama is told to expect (sarama.Config.Version, which
// picks the protocol versions it sends), by default sarama's own default. Creates a topic of three
// partitions, produces RECORDS keyed records with a header (idempotent where the version allows,
// acks=all, snappy), reads them in a consumer group marking each one, produces half as many again
// and checks that the group resumes with exactly those, then checks the group's offsets and state
// as the admin client sees them, and deletes the topic. Prints "OK ..." and exits 0, or prints
// "FAIL <why>" and exits 1.
package main

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/IBM/sarama"
)

func fail(format string, a ...any) {
	fmt.Println("FAIL", fmt.Sprintf(format, a...))
	os.Exit(1)
}

func value(i int) string { return fmt.Sprintf("v-%d-", i) + strings.Repeat("x", i%200) }

// reader checks each record it is given and marks it consumed.
type reader struct {
	first, end int
	mu         sync.Mutex
	seen       map[int]bool
	last       map[int32]int64
	all        chan struct{}
}

func (r *reader) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (r *reader) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (r *reader) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for m := range c.Messages() {
		i, _ := strconv.Atoi(string(m.Key[2:]))
		r.mu.Lock()
		if i < r.first || i >= r.end || r.seen[i] {
			fail("record %d is a duplicate or was not expected", i)
		}
		if string(m.Value) != value(i) || len(m.Headers) != 1 || string(m.Headers[0].Value) != strconv.Itoa(i) {
			fail("content of record %d", i)
		}
		if l, ok := r.last[m.Partition]; ok && l >= m.Offset {
			fail("offsets of partition %d do not increase", m.Partition)
		}
		r.last[m.Partition] = m.Offset
		r.seen[i] = true
		if len(r.seen) == r.end-r.first {
			close(r.all)
		}
		r.mu.Unlock()
		s.MarkMessage(m, "")
	}
	return nil
}

func main() {
	brokers := []string{os.Args[1]}
	n, _ := strconv.Atoi(os.Args[2])
	cfg := sarama.NewConfig()
	if len(os.Args) > 3 {
		v, err := sarama.ParseKafkaVersion(os.Args[3])
		if err != nil {
			fail("version %v", err)
		}
		cfg.Version = v
	}
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Return.Successes = true
	cfg.Producer.Compression = sarama.CompressionSnappy
	if cfg.Version.IsAtLeast(sarama.V0_11_0_0) {
		cfg.Producer.Idempotent = true
		cfg.Net.MaxOpenRequests = 1
	}
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	run := fmt.Sprintf("%08x", rand.Uint32())
	topic, group := "sa-"+run, "sa-group-"+run

	admin, err := sarama.NewClusterAdmin(brokers, cfg)
	if err != nil {
		fail("admin %v", err)
	}
	if err := admin.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: 3, ReplicationFactor: 1}, false); err != nil {
		fail("create %v", err)
	}
	produce := func(start, count int) {
		p, err := sarama.NewSyncProducer(brokers, cfg)
		if err != nil {
			fail("producer %v", err)
		}
		var msgs []*sarama.ProducerMessage
		for i := start; i < start+count; i++ {
			msgs = append(msgs, &sarama.ProducerMessage{Topic: topic,
				Key: sarama.StringEncoder(fmt.Sprintf("k-%d", i)), Value: sarama.StringEncoder(value(i)),
				Headers: []sarama.RecordHeader{{Key: []byte("i"), Value: []byte(strconv.Itoa(i))}}})
		}
		if err := p.SendMessages(msgs); err != nil {
			fail("produce %v", err)
		}
		if err := p.Close(); err != nil {
			fail("close producer %v", err)
		}
	}
	consume := func(first, end int) {
		g, err := sarama.NewConsumerGroup(brokers, group, cfg)
		if err != nil {
			fail("consumer group %v", err)
		}
		r := &reader{first: first, end: end, seen: map[int]bool{}, last: map[int32]int64{}, all: make(chan struct{})}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			for ctx.Err() == nil {
				if err := g.Consume(ctx, []string{topic}, r); err != nil && ctx.Err() == nil {
					fail("consume %v", err)
				}
			}
		}()
		select {
		case <-r.all:
		case <-time.After(60 * time.Second):
			r.mu.Lock()
			fail("read %d of %d records", len(r.seen), end-first)
		}
		time.Sleep(2 * time.Second) // anything more would arrive now, and fail
		cancel()
		<-done
		if err := g.Close(); err != nil { // commits the marked offsets
			fail("close consumer group %v", err)
		}
	}

	total := n + n/2
	produce(0, n)
	consume(0, n)
	produce(n, n/2)
	consume(n, total)

	offsets, err := admin.ListConsumerGroupOffsets(group, map[string][]int32{topic: {0, 1, 2}})
	if err != nil {
		fail("group offsets %v", err)
	}
	var committed int64
	for _, b := range offsets.Blocks[topic] {
		committed += b.Offset
	}
	if committed != int64(total) {
		fail("committed offsets add up to %d", committed)
	}
	groups, err := admin.DescribeConsumerGroups([]string{group})
	if err != nil || len(groups) != 1 || groups[0].State != "Empty" || len(groups[0].Members) != 0 {
		fail("describe group %v %+v", err, groups)
	}
	if err := admin.DeleteTopic(topic); err != nil {
		fail("delete %v", err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		topics, err := admin.ListTopics()
		if err != nil {
			fail("list topics %v", err)
		}
		if _, ok := topics[topic]; !ok {
			break
		}
		if time.Now().After(deadline) {
			fail("topic still listed 20 s after its deletion")
		}
	}
	admin.Close()
	fmt.Printf("OK sarama (Kafka %s protocol): %d records on %s\n", cfg.Version, total, topic)
}
