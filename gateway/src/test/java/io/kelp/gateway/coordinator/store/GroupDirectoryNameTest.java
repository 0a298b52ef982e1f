package io.kelp.gateway.coordinator.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GroupDirectoryNameTest {

  @Test
  void plainIdsAreTheirOwnName() {
    assertEquals("console-consumer-42", GroupDirectoryName.of("console-consumer-42"));
    assertEquals("My_App", GroupDirectoryName.of("My_App"));
  }

  @Test
  void everythingElseIsEscapedIncludingDotsAndPercent() {
    assertEquals("orders%2Eapp", GroupDirectoryName.of("orders.app"));
    assertEquals("%2E%2E", GroupDirectoryName.of(".."));
    assertEquals("a%2Fb", GroupDirectoryName.of("a/b"));
    assertEquals("%2541", GroupDirectoryName.of("%41"));
    assertEquals("%C3%BC", GroupDirectoryName.of("\u00FC"));
    assertEquals("%00", GroupDirectoryName.of("\u0000"));
  }

  @Test
  void emptyAndLongIdsAreHashed() {
    String empty = GroupDirectoryName.of("");
    assertTrue(GroupDirectoryName.isHashed(empty), empty);
    String atLimit = "x".repeat(GroupDirectoryName.MAX_ESCAPED_LENGTH);
    assertEquals(atLimit, GroupDirectoryName.of(atLimit));
    String over = GroupDirectoryName.of(atLimit + "x");
    assertTrue(GroupDirectoryName.isHashed(over));
    assertEquals(66, over.length());
    String escapedOver = GroupDirectoryName.of("/".repeat(54)); // 162 characters escaped
    assertTrue(GroupDirectoryName.isHashed(escapedOver));
    assertNotEquals(
        GroupDirectoryName.of("y".repeat(40_000)), GroupDirectoryName.of("y".repeat(40_001)));
  }

  @Test
  void escapedNamesReadBackAndHashedOnesDoNot() {
    for (String id : List.of("a", "a.b", "..", "a/b", "%", "\u7FA4-\uD83D\uDE00", "x y")) {
      assertEquals(id, GroupDirectoryName.idOf(GroupDirectoryName.of(id)), id);
    }
    assertNull(GroupDirectoryName.idOf(GroupDirectoryName.of("")));
    assertNull(GroupDirectoryName.idOf("a.b"));
    assertNull(GroupDirectoryName.idOf("%4"));
    assertNull(GroupDirectoryName.idOf("%61")); // "a" is never escaped, so no id names it so
  }

  @Test
  void distinctIdsGetDistinctSafeNames() {
    Set<String> names = new HashSet<>();
    List<String> ids =
        List.of("", ".", "..", "/", "A", "a", "%41", "%2541", "h.0", "owner.epoch", "a.tmp-1", "x");
    for (String id : ids) {
      String name = GroupDirectoryName.of(id);
      assertTrue(names.add(name), "two ids named " + name);
      assertFalse(name.contains("/"), name);
      assertFalse(name.contains(".tmp-"), name);
      assertFalse(name.isEmpty());
      assertNotEquals(".", name);
      assertNotEquals("..", name);
      assertNotEquals("owner.epoch", name);
    }
  }

  @Test
  void idsThatAreNotUnicodeTextAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> GroupDirectoryName.of("a\uD800b"));
  }
}
