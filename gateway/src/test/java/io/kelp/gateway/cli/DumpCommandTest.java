package io.kelp.gateway.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DumpCommandTest {

  private static String field(byte[] value) throws Exception {
    StringWriter out = new StringWriter();
    try (JsonGenerator json = new JsonFactory().createGenerator(out)) {
      json.writeStartObject();
      DumpCommand.writeBytes(json, "key", value);
      json.writeEndObject();
    }
    return out.toString();
  }

  @Test
  void textStaysTextBinaryBecomesBase64AndNullStaysNull() throws Exception {
    assertEquals("{\"key\":\"h\u00e9llo\"}", field("h\u00e9llo".getBytes(StandardCharsets.UTF_8)));
    assertEquals(
        "{\"key\":\"/wA=\",\"keyEncoding\":\"base64\"}", field(new byte[] {(byte) 0xff, 0}));
    assertEquals("{\"key\":null}", field(null));
    assertEquals("{\"key\":\"\"}", field(new byte[0]));
  }
}
