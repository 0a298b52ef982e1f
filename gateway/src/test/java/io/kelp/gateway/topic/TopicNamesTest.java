package io.kelp.gateway.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TopicNamesTest {

  @Test
  void kafkasRules() {
    assertTrue(TopicNames.isValid("orders.v1_eu-west"));
    assertTrue(TopicNames.isValid("a".repeat(249)));
    assertFalse(TopicNames.isValid("a".repeat(250)));
    assertFalse(TopicNames.isValid(""));
    assertFalse(TopicNames.isValid("."));
    assertFalse(TopicNames.isValid(".."));
    assertFalse(TopicNames.isValid("a/b"));
    assertFalse(TopicNames.isValid("a b"));
    assertFalse(TopicNames.isValid("caf\u00e9"));
    assertFalse(TopicNames.isValid(null));
  }

  @Test
  void dotsAndUnderscoresCollide() {
    assertEquals(TopicNames.collisionKey("a.b"), TopicNames.collisionKey("a_b"));
  }
}
