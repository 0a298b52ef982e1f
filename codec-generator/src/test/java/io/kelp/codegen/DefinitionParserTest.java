package io.kelp.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.codegen.Model.Field;
import io.kelp.codegen.Model.Message;
import java.util.List;
import org.junit.jupiter.api.Test;

class DefinitionParserTest {

  private static Message parse(String text) {
    return DefinitionParser.parse("Test.kmsg", List.of(text.split("\n")));
  }

  private static String error(String text) {
    return assertThrows(DefinitionException.class, () -> parse(text)).getMessage();
  }

  @Test
  void readsFieldsNestedStructsAndCommonStructs() {
    Message m =
        parse(
            """
            # a comment
            request FooRequest key=99 versions=0-3 flexible=2+
              Name        string  nullable=1+  default=null
              Items       []Item  1+
                Id        int32
                Tags      []string  2+  tag=0
              Leader      Endpoint
            struct Endpoint
              Host        string
              Port        int32
            """);
    assertEquals(99, m.apiKey);
    assertEquals(new Versions(0, 3), m.valid);
    assertEquals(new Versions(2, Versions.MAX), m.flexible);
    assertEquals(3, m.root.fields.size());
    Field name = m.root.fields.get(0);
    assertEquals(new Versions(1, Versions.MAX), name.nullable);
    assertEquals("null", name.defaultValue);
    Field tags = m.structs.get("Item").fields.get(1);
    assertTrue(tags.isTagged());
    assertEquals(0, tags.tag);
    assertEquals(new Versions(2, Versions.MAX), tags.tagged);
    assertEquals(2, m.structs.get("Endpoint").fields.size());
  }

  @Test
  void mistakesNameTheFileAndLine() {
    assertTrue(
        error("request A key=1 versions=0 flexible=none\n   Bad int32").startsWith("Test.kmsg:2:"));
    assertTrue(
        error("request A key=1 versions=0 flexible=none\n  X []Missing")
            .contains("struct Missing has no fields"));
    assertTrue(
        error("request A key=1 versions=0-3 flexible=2+\n  X int32 2+ tag=0\n  Y int32 2+ tag=0")
            .contains("tag 0 is used by X and Y"));
    assertTrue(
        error("request A key=1 versions=0-3 flexible=2+\n  X int32 0+ tag=1")
            .contains("not all flexible"));
    assertTrue(error("request A key=1 versions=0 flexible=none\n  x int32").contains("capital"));
    assertTrue(
        error("request A key=1 versions=0 flexible=none\n  X int32 weird=1")
            .contains("unknown attribute weird"));
  }

  @Test
  void versionConditionsAreSimplifiedForTheMessageRange() {
    Versions valid = new Versions(3, 13);
    assertEquals("true", new Versions(0, Versions.MAX).condition(valid));
    assertEquals("version >= 9", new Versions(9, Versions.MAX).condition(valid));
    assertEquals("version <= 12", new Versions(0, 12).condition(valid));
    assertEquals("version == 5", new Versions(5, 5).condition(valid));
    assertEquals("false", new Versions(14, Versions.MAX).condition(valid));
    assertEquals(new Versions(3, 9), new Versions(3, 13).subtract(new Versions(10, 13)));
  }
}
