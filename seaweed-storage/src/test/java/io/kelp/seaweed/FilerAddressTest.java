package io.kelp.seaweed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FilerAddressTest {
  @Test
  void theGrpcPortIsTheHttpPortPlus10000UnlessGivenAfterADot() {
    assertEquals(
        new FilerAddress("filer.example", 8888, 18888), FilerAddress.parse("filer.example:8888"));
    assertEquals(
        new FilerAddress("10.0.0.5", 8888, 9999), FilerAddress.parse(" 10.0.0.5:8888.9999 "));
    assertEquals(new FilerAddress("::1", 8888, 18888), FilerAddress.parse("[::1]:8888"));
    assertEquals(new FilerAddress("::1", 8888, 7777), FilerAddress.parse("[::1]:8888.7777"));
  }

  @Test
  void writesTheGrpcPortOnlyWhenItIsNotTheDefault() {
    assertEquals("filer:8888", new FilerAddress("filer", 8888, 18888).toString());
    assertEquals("filer:8888.9999", new FilerAddress("filer", 8888, 9999).toString());
    assertEquals("[::1]:8888.9999", new FilerAddress("::1", 8888, 9999).toString());
    for (String s : new String[] {"a:1", "a:1.2", "[fe80::1]:80", "[fe80::1]:80.81"}) {
      assertEquals(s, FilerAddress.parse(s).toString());
    }
  }

  @Test
  void refusesWhatIsNotAnAddressSayingWhy() {
    assertRefused("8888", "is not HOST:PORT");
    assertRefused("filer:", "is not HOST:PORT");
    assertRefused(":8888", "is not HOST:PORT");
    assertRefused("filer:http", "not a number");
    assertRefused("filer:8888.", "not a number");
    assertRefused("filer:8888.x", "not a number");
    assertRefused("filer:-1", "not a number");
    assertRefused("filer:0", "outside 1-65535");
    assertRefused("filer:8888.70000", "outside 1-65535");
    assertRefused("filer:99999999999", "outside 1-65535");
    assertRefused("::1:8888", "in brackets");
    // The default gRPC port would not exist: the address has to name one.
    assertRefused("filer:60000", "HOST:PORT.GRPC_PORT");
    assertEquals(9999, FilerAddress.parse("filer:60000.9999").grpcPort());
  }

  /**
   * A filer started with {@code -filer.port.grpc} is reached through the address naming that port.
   */
  @Test
  void reachesAFilerWhoseGrpcPortIsNotTheDefault() throws Exception {
    try (WeedProcess weed = WeedProcess.startWithOwnFilerGrpcPort()) {
      assertEquals(weed.filerHttpAddress() + "." + weed.filerGrpcPort(), weed.filerAddress());
      try (SeaweedObjectStore store =
          new SeaweedObjectStore(
              weed.filerAddress(), "", "", Duration.ofSeconds(5), PooledByteBufAllocator.DEFAULT)) {
        store.awaitFiler(Duration.ofSeconds(10));
        store.append("/topics/kafka/t/a.log", bytes("kelp "), null);
        store.append("/topics/kafka/t/a.log", bytes("on seaweedfs"), null);
        ByteBuf back = store.read("/topics/kafka/t/a.log", 0, 100);
        try {
          assertEquals("kelp on seaweedfs", back.toString(StandardCharsets.US_ASCII));
        } finally {
          back.release();
        }
      }
      // Without the gRPC port, the store looks for it at HTTP + 10000, and says so.
      try (SeaweedObjectStore wrong =
          new SeaweedObjectStore(
              weed.filerHttpAddress(),
              "",
              "",
              Duration.ofSeconds(1),
              PooledByteBufAllocator.DEFAULT)) {
        IOException e =
            assertThrows(IOException.class, () -> wrong.awaitFiler(Duration.ofSeconds(1)));
        int assumed = FilerAddress.parse(weed.filerHttpAddress()).httpPort() + 10000;
        assertTrue(e.getMessage().contains("gRPC port " + assumed), e.getMessage());
      }
    }
  }

  private static ByteBuf bytes(String s) {
    return Unpooled.wrappedBuffer(s.getBytes(StandardCharsets.US_ASCII));
  }

  private static void assertRefused(String text, String why) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> FilerAddress.parse(text), text);
    assertTrue(e.getMessage().contains(why), text + ": " + e.getMessage());
  }
}
