package io.kelp.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupsOptions;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.MemberToRemove;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.ConsumerGroupState;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.GroupSubscribedToTopicException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The admin client's view and management of consumer groups: list (with state and type filters),
 * describe, list/alter/delete offsets, remove members, delete groups, and the errors Kafka gives
 * while a group still has members.
 */
class GroupAdminCompatTest {
  private static final Duration JOIN = Duration.ofSeconds(60);
  private static KelpProcess kelp;

  @BeforeAll
  static void startBroker() {
    kelp = KelpProcess.start("GroupAdminCompatTest");
  }

  @AfterAll
  static void stopBroker() {
    if (kelp != null) {
      try (KelpProcess broker = kelp) {
        broker.stop();
      }
    }
  }

  @Test
  void classicGroupThroughItsLife() throws Exception {
    String topic = "admin-classic";
    String group = "admin-classic";
    List<TopicPartition> tps = Groups.partitions(topic, 2);
    TopicPartition p0 = tps.get(0);
    TopicPartition p1 = tps.get(1);
    try (Admin admin = Clients.admin(kelp.bootstrap())) {
      Groups.createTopic(admin, topic, 2);
      Groups.produceNumbered(kelp.bootstrap(), topic, 2, 5);
      Map<String, Object> dynamicSettings = Groups.classic(group);
      dynamicSettings.put(ConsumerConfig.CLIENT_ID_CONFIG, "admin-dynamic");
      Map<String, Object> staticSettings = Groups.classic(group);
      staticSettings.put(ConsumerConfig.CLIENT_ID_CONFIG, "admin-static");
      staticSettings.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "admin-static-instance");
      try (KafkaConsumer<String, String> dynamic =
              Groups.member(kelp.bootstrap(), dynamicSettings);
          KafkaConsumer<String, String> fixed = Groups.member(kelp.bootstrap(), staticSettings)) {
        dynamic.subscribe(List.of(topic));
        fixed.subscribe(List.of(topic));
        // one thread polls both, so each rejoins while the other's join waits
        Groups.await(
            JOIN,
            "two members with one partition each",
            () -> {
              dynamic.poll(Duration.ofMillis(50));
              fixed.poll(Duration.ofMillis(50));
              return dynamic.assignment().size() == 1 && fixed.assignment().size() == 1;
            },
            () -> "assignments " + dynamic.assignment() + " and " + fixed.assignment());
        TopicPartition ofDynamic = dynamic.assignment().iterator().next();
        TopicPartition ofFixed = fixed.assignment().iterator().next();
        dynamic.commitSync(Map.of(ofDynamic, new OffsetAndMetadata(2, "by dynamic")));
        fixed.commitSync(Map.of(ofFixed, new OffsetAndMetadata(3, "by static")));

        assertTrue(groupIds(Clients.get(admin.listConsumerGroups().all())).contains(group));
        assertTrue(listedIn(admin, ConsumerGroupState.STABLE).contains(group));
        assertFalse(listedIn(admin, ConsumerGroupState.EMPTY).contains(group));
        ListGroupsOptions stableConsumerGroups =
            ListGroupsOptions.forConsumerGroups().inGroupStates(Set.of(GroupState.STABLE));
        Collection<GroupListing> listed = Clients.get(admin.listGroups(stableConsumerGroups).all());
        GroupListing listing =
            listed.stream().filter(g -> g.groupId().equals(group)).findFirst().orElseThrow();
        assertEquals(Optional.of(GroupType.CLASSIC), listing.type());
        assertEquals("consumer", listing.protocol());

        ConsumerGroupDescription description = describe(admin, group);
        assertEquals(GroupState.STABLE, description.groupState());
        assertEquals(GroupType.CLASSIC, description.type());
        assertEquals("range", description.partitionAssignor(), "first of the default assignors");
        assertFalse(description.isSimpleConsumerGroup());
        Node node = Clients.get(admin.describeCluster().nodes()).iterator().next();
        assertEquals(node.id(), description.coordinator().id());
        assertEquals(node.port(), description.coordinator().port());
        assertEquals(2, description.members().size(), description.toString());
        MemberDescription dynamicMember = member(description, "admin-dynamic");
        MemberDescription staticMember = member(description, "admin-static");
        assertEquals(Set.of(ofDynamic), dynamicMember.assignment().topicPartitions());
        assertEquals(Set.of(ofFixed), staticMember.assignment().topicPartitions());
        assertEquals(Optional.empty(), dynamicMember.groupInstanceId());
        assertEquals(Optional.of("admin-static-instance"), staticMember.groupInstanceId());
        assertTrue(dynamicMember.host().contains("127.0.0.1"), dynamicMember.host());
        assertFalse(dynamicMember.consumerId().isEmpty());

        Map<TopicPartition, OffsetAndMetadata> offsets = offsets(admin, group);
        assertEquals(new OffsetAndMetadata(2, "by dynamic"), withoutEpoch(offsets.get(ofDynamic)));
        assertEquals(new OffsetAndMetadata(3, "by static"), withoutEpoch(offsets.get(ofFixed)));

        // while the group has members, its offsets and the group itself are theirs
        Throwable alter =
            assertThrows(
                Exception.class,
                () ->
                    Clients.get(
                        admin
                            .alterConsumerGroupOffsets(group, Map.of(p0, new OffsetAndMetadata(1)))
                            .all()));
        assertInstanceOf(UnknownMemberIdException.class, rootCause(alter), alter.toString());
        Throwable deleteOffsets =
            assertThrows(
                Exception.class,
                () -> Clients.get(admin.deleteConsumerGroupOffsets(group, Set.of(p0)).all()));
        assertInstanceOf(
            GroupSubscribedToTopicException.class,
            rootCause(deleteOffsets),
            deleteOffsets.toString());
        Throwable deleteGroup =
            assertThrows(
                Exception.class,
                () -> Clients.get(admin.deleteConsumerGroups(List.of(group)).all()));
        assertInstanceOf(
            GroupNotEmptyException.class, rootCause(deleteGroup), deleteGroup.toString());

        // the static member by its instance id; the dynamic one then takes both partitions
        Clients.get(
            admin
                .removeMembersFromConsumerGroup(
                    group,
                    new RemoveMembersFromConsumerGroupOptions(
                        List.of(new MemberToRemove("admin-static-instance"))))
                .all());
        Groups.pollUntil(
            dynamic,
            JOIN,
            "the dynamic member owns both partitions",
            () -> dynamic.assignment().size() == 2);
        Groups.await(
            JOIN,
            "the group is stable with one member",
            () -> {
              ConsumerGroupDescription d = describe(admin, group);
              return d.groupState() == GroupState.STABLE && d.members().size() == 1;
            },
            () -> describe(admin, group).toString());
        assertEquals(
            Set.copyOf(tps),
            describe(admin, group).members().iterator().next().assignment().topicPartitions());

        // no members named: every member is removed
        Clients.get(
            admin
                .removeMembersFromConsumerGroup(group, new RemoveMembersFromConsumerGroupOptions())
                .all());
        description = describe(admin, group);
        assertEquals(GroupState.EMPTY, description.groupState());
        assertTrue(description.members().isEmpty(), description.toString());
        assertTrue(listedIn(admin, ConsumerGroupState.EMPTY).contains(group));
        assertFalse(listedIn(admin, ConsumerGroupState.STABLE).contains(group));

        // an empty group's offsets are the admin's
        Clients.get(
            admin
                .alterConsumerGroupOffsets(group, Map.of(p0, new OffsetAndMetadata(1, "altered")))
                .all());
        offsets = offsets(admin, group);
        assertEquals(new OffsetAndMetadata(1, "altered"), withoutEpoch(offsets.get(p0)));
        long p1Committed = ofDynamic.equals(p1) ? 2 : 3;
        assertEquals(p1Committed, offsets.get(p1).offset(), "the other partition's commit stays");
        Clients.get(admin.deleteConsumerGroupOffsets(group, Set.of(p1)).all());
        assertEquals(Set.of(p0), offsets(admin, group).keySet());

        Clients.get(admin.deleteConsumerGroups(List.of(group)).all());
        assertFalse(groupIds(Clients.get(admin.listConsumerGroups().all())).contains(group));
        assertTrue(offsets(admin, group).isEmpty());
        // Kafka 4 answers both ConsumerGroupDescribe and DescribeGroups (v6) for a group that
        // does not exist with GROUP_ID_NOT_FOUND; older brokers described it as Dead
        assertThrows(GroupIdNotFoundException.class, () -> describe(admin, group));

        // the removed members find out and leave quietly
        dynamic.close(Duration.ofSeconds(10));
        fixed.close(Duration.ofSeconds(10));
      }
    }
  }

  @Test
  void consumerProtocolGroupIsDescribedWithItsEpochs() throws Exception {
    String topic = "admin-848";
    String group = "admin-848";
    List<TopicPartition> tps = Groups.partitions(topic, 2);
    try (Admin admin = Clients.admin(kelp.bootstrap())) {
      Groups.createTopic(admin, topic, 2);
      Groups.produceNumbered(kelp.bootstrap(), topic, 2, 5);
      Map<String, Object> settings = Groups.consumerProtocol(group);
      settings.put(ConsumerConfig.CLIENT_ID_CONFIG, "admin-848-member");
      try (KafkaConsumer<String, String> consumer = Groups.member(kelp.bootstrap(), settings)) {
        consumer.subscribe(List.of(topic));
        Groups.pollUntil(
            consumer, JOIN, "both partitions assigned", () -> consumer.assignment().size() == 2);
        consumer.commitSync(Map.of(tps.get(0), new OffsetAndMetadata(4, "848")));

        ConsumerGroupDescription description = describe(admin, group);
        assertEquals(GroupType.CONSUMER, description.type());
        assertEquals(GroupState.STABLE, description.groupState());
        assertEquals("uniform", description.partitionAssignor(), "Kafka's default server assignor");
        assertTrue(description.groupEpoch().orElse(0) >= 1, description.toString());
        assertEquals(description.groupEpoch(), description.targetAssignmentEpoch());
        MemberDescription member = description.members().iterator().next();
        assertEquals(1, description.members().size());
        assertEquals("admin-848-member", member.clientId());
        assertEquals(Set.copyOf(tps), member.assignment().topicPartitions());
        assertEquals(
            Optional.of(Set.copyOf(tps)), member.targetAssignment().map(a -> a.topicPartitions()));
        assertEquals(description.groupEpoch(), member.memberEpoch());

        ListConsumerGroupsOptions consumerType =
            new ListConsumerGroupsOptions().withTypes(Set.of(GroupType.CONSUMER));
        assertTrue(
            groupIds(Clients.get(admin.listConsumerGroups(consumerType).all())).contains(group));
        ListConsumerGroupsOptions classicType =
            new ListConsumerGroupsOptions().withTypes(Set.of(GroupType.CLASSIC));
        assertFalse(
            groupIds(Clients.get(admin.listConsumerGroups(classicType).all())).contains(group));

        assertEquals(4, offsets(admin, group).get(tps.get(0)).offset());
        Throwable deleteOffsets =
            assertThrows(
                Exception.class,
                () ->
                    Clients.get(admin.deleteConsumerGroupOffsets(group, Set.of(tps.get(0))).all()));
        assertInstanceOf(
            GroupSubscribedToTopicException.class,
            rootCause(deleteOffsets),
            deleteOffsets.toString());
        Throwable deleteGroup =
            assertThrows(
                Exception.class,
                () -> Clients.get(admin.deleteConsumerGroups(List.of(group)).all()));
        assertInstanceOf(
            GroupNotEmptyException.class, rootCause(deleteGroup), deleteGroup.toString());
      }
      // close() left the group: it is empty and can go
      assertEquals(GroupState.EMPTY, describe(admin, group).groupState());
      Clients.get(admin.deleteConsumerGroups(List.of(group)).all());
      assertTrue(offsets(admin, group).isEmpty());
    }
  }

  @SuppressWarnings("deprecation") // the filter most applications still use
  private static Set<String> listedIn(Admin admin, ConsumerGroupState state) {
    return groupIds(
        Clients.get(
            admin
                .listConsumerGroups(new ListConsumerGroupsOptions().inStates(Set.of(state)))
                .all()));
  }

  private static Set<String> groupIds(Collection<?> listings) {
    Set<String> ids = new HashSet<>();
    for (Object l : listings) {
      ids.add(
          l instanceof GroupListing g
              ? g.groupId()
              : ((org.apache.kafka.clients.admin.ConsumerGroupListing) l).groupId());
    }
    return ids;
  }

  private static ConsumerGroupDescription describe(Admin admin, String group) {
    return Clients.get(admin.describeConsumerGroups(List.of(group)).all()).get(group);
  }

  private static Map<TopicPartition, OffsetAndMetadata> offsets(Admin admin, String group) {
    return Clients.get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
  }

  private static MemberDescription member(ConsumerGroupDescription description, String clientId) {
    return description.members().stream()
        .filter(m -> m.clientId().equals(clientId))
        .findFirst()
        .orElseThrow(
            () ->
                new AssertionError(
                    "no member with client id "
                        + clientId
                        + " in "
                        + description.members().stream()
                            .map(MemberDescription::clientId)
                            .collect(Collectors.toList())));
  }

  /** The leader epoch a consumer commits depends on the broker; these tests compare the rest. */
  private static OffsetAndMetadata withoutEpoch(OffsetAndMetadata om) {
    return om == null ? null : new OffsetAndMetadata(om.offset(), om.metadata());
  }

  private static Throwable rootCause(Throwable t) {
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }
}
