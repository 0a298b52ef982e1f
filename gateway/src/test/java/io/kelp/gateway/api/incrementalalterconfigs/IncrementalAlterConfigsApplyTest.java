package io.kelp.gateway.api.incrementalalterconfigs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.kelp.codec.message.IncrementalAlterConfigsRequest.AlterableConfig;
import io.kelp.gateway.api.ConfigAlteration.Refused;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IncrementalAlterConfigsApplyTest {

  private static AlterableConfig op(String name, int op, String value) {
    return new AlterableConfig().setName(name).setConfigOperation((byte) op).setValue(value);
  }

  @Test
  void setAndDelete() throws Exception {
    Map<String, String> next =
        IncrementalAlterConfigsHandler.apply(
            Map.of("retention.ms", "5", "segment.ms", "9"),
            List.of(op("retention.ms", 0, "10"), op("segment.ms", 1, null)));
    assertEquals(Map.of("retention.ms", "10"), next);
  }

  @Test
  void appendAndSubtractWorkOnTheValueInEffect() throws Exception {
    // cleanup.policy defaults to delete: appending compact gives both.
    Map<String, String> next =
        IncrementalAlterConfigsHandler.apply(Map.of(), List.of(op("cleanup.policy", 2, "compact")));
    assertEquals("delete,compact", next.get("cleanup.policy"));
    next = IncrementalAlterConfigsHandler.apply(next, List.of(op("cleanup.policy", 3, "delete")));
    assertEquals("compact", next.get("cleanup.policy"));
  }

  @Test
  void appendToANonListIsRefused() {
    assertThrows(
        Refused.class,
        () -> IncrementalAlterConfigsHandler.apply(Map.of(), List.of(op("retention.ms", 2, "1"))));
  }

  @Test
  void duplicateKeysAndUnknownOperationsAreRefused() {
    assertThrows(
        Refused.class,
        () ->
            IncrementalAlterConfigsHandler.apply(
                Map.of(), List.of(op("retention.ms", 0, "1"), op("retention.ms", 1, null))));
    assertThrows(
        Refused.class,
        () -> IncrementalAlterConfigsHandler.apply(Map.of(), List.of(op("retention.ms", 9, "1"))));
    assertThrows(
        Refused.class,
        () -> IncrementalAlterConfigsHandler.apply(Map.of(), List.of(op("nope", 0, "1"))));
  }
}
