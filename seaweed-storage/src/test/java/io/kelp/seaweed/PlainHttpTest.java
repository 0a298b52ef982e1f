package io.kelp.seaweed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The upload client's HTTP/1.1 handling against a scripted server on 127.0.0.1: the answer forms a
 * volume server may send (SeaweedFS's own answers carry a Content-Length, which the store tests
 * cover against a real one) and a kept-alive connection closed under the client, which a real
 * server does only after its idle timeout.
 */
class PlainHttpTest {
  /** What the scripted server answers to one request, and whether it closes afterwards. */
  private record Answer(String raw, boolean closeAfter) {}

  private interface Script {
    Answer answer(int requestNumber, String head, byte[] body);
  }

  private ServerSocket server;
  private Thread acceptor;
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger requests = new AtomicInteger();
  private final List<byte[]> bodies = new CopyOnWriteArrayList<>();
  private final List<String> heads = new CopyOnWriteArrayList<>();

  private String serve(Script script) throws IOException {
    // The acceptor keeps its own socket: a test may close this one and open another in the field.
    ServerSocket listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    server = listening;
    acceptor =
        new Thread(
            () -> {
              while (!listening.isClosed()) {
                try {
                  Socket s = listening.accept();
                  connections.incrementAndGet();
                  Thread t = new Thread(() -> handle(s, script));
                  t.setDaemon(true);
                  t.start();
                } catch (IOException e) {
                  return;
                }
              }
            });
    acceptor.setDaemon(true);
    acceptor.start();
    return "127.0.0.1:" + listening.getLocalPort();
  }

  private void handle(Socket s, Script script) {
    try (s) {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      while (true) {
        String head = readHead(in);
        if (head == null) {
          return;
        }
        int length = 0;
        for (String line : head.split("\r\n")) {
          if (line.toLowerCase().startsWith("content-length:")) {
            length = Integer.parseInt(line.substring(15).trim());
          }
        }
        byte[] body = in.readNBytes(length);
        heads.add(head);
        bodies.add(body);
        Answer a = script.answer(requests.incrementAndGet(), head, body);
        out.write(a.raw().getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        if (a.closeAfter()) {
          return;
        }
      }
    } catch (IOException e) {
      // the client went away
    }
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int c = in.read();
      if (c < 0) {
        return null;
      }
      b.write(c);
      matched = (c == '\r' || c == '\n') && "\r\n\r\n".charAt(matched) == c ? matched + 1 : 0;
    }
    return b.toString(StandardCharsets.ISO_8859_1);
  }

  @AfterEach
  void stop() throws IOException {
    if (server != null) {
      server.close();
    }
  }

  private static Answer ok(String body) {
    return new Answer(
        "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: "
            + body.length()
            + "\r\n\r\n"
            + body,
        false);
  }

  private static ByteBuf buffer(byte[] bytes) {
    return PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes);
  }

  @Test
  void sendsHeadAndBodyAndKeepsTheConnection() throws Exception {
    String address = serve((n, head, body) -> ok("{\"size\":" + body.length + "}"));
    byte[] a = new byte[70_000];
    new Random(1).nextBytes(a);
    byte[] b = new byte[3];
    CompositeByteBuf composite = PooledByteBufAllocator.DEFAULT.compositeDirectBuffer();
    composite.addComponent(true, buffer(a));
    composite.addComponent(true, buffer(b));
    try (PlainHttp http = new PlainHttp(2000, 5000)) {
      PlainHttp.Response first =
          http.send(address, "PUT", "/3,01637037d6?fsync=true", composite, "X-Test", "yes");
      int readerIndex = composite.readerIndex();
      PlainHttp.Response second = http.send(address, "PUT", "/3,02", Unpooled.wrappedBuffer(b));
      assertEquals(201, first.status());
      assertEquals("{\"size\":70003}", first.text());
      assertEquals("{\"size\":3}", second.text());
      assertEquals(0, readerIndex, "the caller's buffer is left as it was");
      assertEquals(1, connections.get(), "both requests went over one kept-alive connection");
    } finally {
      composite.release();
    }
    byte[] expected = new byte[a.length + b.length];
    System.arraycopy(a, 0, expected, 0, a.length);
    assertArrayEquals(expected, bodies.get(0));
    String head = heads.get(0);
    assertTrue(head.startsWith("PUT /3,01637037d6?fsync=true HTTP/1.1\r\n"), head);
    assertTrue(head.contains("\r\nHost: " + address + "\r\n"), head);
    assertTrue(head.contains("\r\nContent-Length: 70003\r\n"), head);
    assertTrue(head.contains("\r\nX-Test: yes\r\n"), head);
  }

  /**
   * A body far larger than the socket's send buffer, in several components and read from past its
   * start, goes whole and in order: the gathering write is repeated until every byte is out.
   */
  @Test
  void aBodyLargerThanTheSocketBufferIsSentWholeFromItsReaderIndex() throws Exception {
    String address = serve((n, head, body) -> ok("{\"size\":" + body.length + "}"));
    byte[] all = new byte[8 << 20];
    new Random(2).nextBytes(all);
    CompositeByteBuf composite = PooledByteBufAllocator.DEFAULT.compositeDirectBuffer();
    int part = all.length / 5;
    for (int from = 0; from < all.length; from += part) {
      composite.addComponent(
          true, buffer(Arrays.copyOfRange(all, from, Math.min(all.length, from + part))));
    }
    composite.readerIndex(1000);
    try (PlainHttp http = new PlainHttp(2000, 5000)) {
      PlainHttp.Response response = http.send(address, "PUT", "/3,03", composite);
      assertEquals("{\"size\":" + (all.length - 1000) + "}", response.text());
      assertEquals(1000, composite.readerIndex(), "the caller's buffer is left as it was");
    } finally {
      composite.release();
    }
    assertArrayEquals(Arrays.copyOfRange(all, 1000, all.length), bodies.get(0));
  }

  /** Chunk reads keep the whole body they ask for; other answers are cut at {@code MAX_BODY}. */
  @Test
  void keepsAsMuchOfTheBodyAsAsked() throws Exception {
    byte[] chunk = new byte[3 * PlainHttp.MAX_BODY + 7];
    new Random(2).nextBytes(chunk);
    String text = new String(chunk, StandardCharsets.ISO_8859_1);
    String address =
        serve(
            (n, head, body) ->
                new Answer(
                    (n % 2 == 1
                            ? "HTTP/1.1 206 Partial Content\r\nContent-Length: "
                            : "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                + Integer.toHexString(chunk.length)
                                + "\r\n")
                        + (n % 2 == 1 ? chunk.length + "\r\n\r\n" : "")
                        + text
                        + (n % 2 == 1 ? "" : "\r\n0\r\n\r\n"),
                    false));
    try (PlainHttp http = new PlainHttp(2000, 5000)) {
      PlainHttp.Response whole =
          http.send(address, "GET", "/1,01", null, chunk.length, "Range", "x");
      assertArrayEquals(chunk, whole.body());
      PlainHttp.Response chunked = http.send(address, "GET", "/1,01", null, chunk.length);
      assertArrayEquals(chunk, chunked.body());
      PlainHttp.Response cut = http.send(address, "GET", "/1,01", null);
      assertArrayEquals(Arrays.copyOf(chunk, PlainHttp.MAX_BODY), cut.body());
      PlainHttp.Response part = http.send(address, "GET", "/1,01", null, 100);
      assertArrayEquals(Arrays.copyOf(chunk, 100), part.body());
      assertEquals(1, connections.get(), "every answer was read to its end");
    }
  }

  @Test
  void readsChunkedAnswers() throws Exception {
    String address =
        serve(
            (n, head, body) ->
                new Answer(
                    "HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n",
                    false));
    try (PlainHttp http = new PlainHttp(2000, 5000)) {
      PlainHttp.Response r = http.send(address, "PUT", "/1,01", null);
      assertEquals(500, r.status());
      assertEquals("hello, world", r.text());
      assertEquals("hello, world", http.send(address, "PUT", "/1,02", null).text());
      assertEquals(1, connections.get());
    }
  }

  @Test
  void readsAnswersEndedByClosingAndDoesNotReuseThatConnection() throws Exception {
    String address =
        serve(
            (n, head, body) ->
                new Answer("HTTP/1.1 404 Not Found\r\n\r\nno such chunk " + n, true));
    try (PlainHttp http = new PlainHttp(2000, 5000)) {
      assertEquals("no such chunk 1", http.send(address, "GET", "/1,01", null).text());
      assertEquals("no such chunk 2", http.send(address, "GET", "/1,01", null).text());
      assertEquals(2, connections.get());
    }
  }

  @Test
  void aKeptAliveConnectionClosedByTheServerIsReplacedOnce() throws Exception {
    // The server closes after each answer without saying so, as one whose idle timeout ran out.
    String address =
        serve(
            (n, head, body) ->
                new Answer("HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}", true));
    try (PlainHttp http = new PlainHttp(2000, 5000)) {
      for (int i = 0; i < 3; i++) {
        assertEquals(
            201,
            http.send(address, "PUT", "/1,0" + i, Unpooled.wrappedBuffer(new byte[] {1})).status());
      }
    }
    assertEquals(3, requests.get(), "every request reached the server once");
    assertEquals(3, connections.get());
  }

  @Test
  void aServerThatDoesNotAnswerTimesOut() throws Exception {
    // Connections are taken into the backlog but never accepted, so nothing is ever answered.
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    String address = "127.0.0.1:" + server.getLocalPort();
    try (PlainHttp http = new PlainHttp(2000, 300)) {
      assertThrows(SocketTimeoutException.class, () -> http.send(address, "PUT", "/1,01", null));
    }
  }

  /**
   * Bodies asked for in a buffer land in it whole, whether they fit in what the first read of the
   * answer brought with the head or go on far past it, and the connection carries on with the next
   * answer from the right byte.
   */
  @Test
  void bodiesReadIntoABufferAreWholeOnEitherSideOfTheHeadsRead() throws Exception {
    byte[] large = new byte[3 << 20];
    new Random(3).nextBytes(large);
    byte[] small = Arrays.copyOf(large, 100);
    String address =
        serve(
            (n, head, body) -> {
              byte[] b = n % 2 == 1 ? small : large;
              return new Answer(
                  "HTTP/1.1 200 OK\r\nContent-Length: "
                      + b.length
                      + "\r\n\r\n"
                      + new String(b, StandardCharsets.ISO_8859_1),
                  false);
            });
    try (PlainHttp http = new PlainHttp(2000, 5000)) {
      for (int i = 0; i < 4; i++) {
        byte[] expected = i % 2 == 0 ? small : large;
        PlainHttp.BufferResponse r =
            http.sendForBuffer(
                PooledByteBufAllocator.DEFAULT, address, "GET", "/1,0" + i, large.length);
        try {
          assertEquals(200, r.status());
          assertArrayEquals(expected, io.netty.buffer.ByteBufUtil.getBytes(r.body()));
        } finally {
          r.body().release();
        }
      }
      assertEquals(1, connections.get(), "every answer was read to its end");
    }
  }

  /** A server that stops in the middle of a body fails the read after the read timeout. */
  @Test
  void aBodyThatStopsComingTimesOut() throws Exception {
    String address =
        serve(
            (n, head, body) -> {
              return new Answer("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\npart", false);
            });
    try (PlainHttp http = new PlainHttp(2000, 300)) {
      long start = System.nanoTime();
      SocketTimeoutException e =
          assertThrows(
              SocketTimeoutException.class,
              () ->
                  http.sendForBuffer(
                      PooledByteBufAllocator.DEFAULT, address, "GET", "/1,01", 1 << 20));
      long ms = (System.nanoTime() - start) / 1_000_000;
      assertTrue(ms >= 300 && ms < 5000, "timed out after " + ms + " ms");
      assertTrue(e.getMessage().contains("300 ms"), e.getMessage());
    }
  }

  /**
   * The read timeout is for an exchange that stops moving, not for a long one: a body that keeps
   * coming in small pieces, for longer in all than the timeout, is read whole.
   */
  @Test
  void aSlowBodyThatKeepsComingIsReadWhole() throws Exception {
    byte[] body = new byte[20_000];
    new Random(4).nextBytes(body);
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t =
        new Thread(
            () -> {
              try (Socket s = server.accept()) {
                readHead(s.getInputStream());
                OutputStream out = s.getOutputStream();
                out.write(
                    ("HTTP/1.1 200 OK\r\nContent-Length: " + body.length + "\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                for (int from = 0; from < body.length; from += 2000) {
                  out.write(body, from, 2000);
                  out.flush();
                  Thread.sleep(100);
                }
                s.getInputStream().read(); // until the client closes
              } catch (IOException | InterruptedException e) {
                // the client went away
              }
            });
    t.setDaemon(true);
    t.start();
    String address = "127.0.0.1:" + server.getLocalPort();
    try (PlainHttp http = new PlainHttp(2000, 400)) {
      long start = System.nanoTime();
      PlainHttp.BufferResponse r =
          http.sendForBuffer(PooledByteBufAllocator.DEFAULT, address, "GET", "/1,01", 1 << 20);
      try {
        assertArrayEquals(body, io.netty.buffer.ByteBufUtil.getBytes(r.body()));
      } finally {
        r.body().release();
      }
      assertTrue(System.nanoTime() - start > 800_000_000L, "the body took longer than the timeout");
    }
  }

  @Test
  void malformedAnswersFailCleanly() throws Exception {
    String address =
        serve(
            (n, head, body) ->
                new Answer(
                    n == 1
                        ? "SSH-2.0-OpenSSH\r\n\r\n"
                        : "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
                    true));
    try (PlainHttp http = new PlainHttp(2000, 5000)) {
      IOException notHttp =
          assertThrows(IOException.class, () -> http.send(address, "GET", "/", null));
      assertTrue(notHttp.getMessage().contains("not an HTTP/1.x answer"), notHttp.getMessage());
      IOException cut = assertThrows(IOException.class, () -> http.send(address, "GET", "/", null));
      assertTrue(cut.getMessage().contains("ended 5 bytes early"), cut.getMessage());
    }
  }

  /** The answer to {@code GET /<n>}: a body naming the path, longer for some. */
  private static Answer pathEcho(String head, boolean closeAfter, String extraHeader) {
    String path = head.substring(4, head.indexOf(' ', 4));
    String body = path.repeat(path.length() % 3 == 0 ? 5000 : 1);
    return new Answer(
        "HTTP/1.1 206 Partial Content\r\n"
            + extraHeader
            + "Content-Length: "
            + body.length()
            + "\r\n\r\n"
            + body,
        closeAfter);
  }

  private static List<PlainHttp.Get> gets(int n) {
    List<PlainHttp.Get> gets = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      gets.add(new PlainHttp.Get("/" + i, 1 << 20, "Range", "bytes=0-" + i));
    }
    return gets;
  }

  /** Checks that the answers are those to {@code GET /0} ... in order, and releases them. */
  private static void assertEchoes(int n, PlainHttp.Pipelined p) {
    try {
      assertEquals(n, p.answers().size(), "answers, failure " + p.failure());
      for (int i = 0; i < n; i++) {
        String path = "/" + i;
        assertEquals(206, p.answers().get(i).status());
        assertEquals(
            path.repeat(path.length() % 3 == 0 ? 5000 : 1),
            p.answers().get(i).body().toString(StandardCharsets.ISO_8859_1));
      }
    } finally {
      p.answers().forEach(a -> a.body().release());
    }
  }

  /**
   * More GETs than go out at once are all answered, in the order asked, over one connection that is
   * kept for what comes next; each request carries its own headers.
   */
  @Test
  void pipelinedGetsAreAnsweredInOrderOverOneConnection() throws Exception {
    String address = serve((n, head, body) -> pathEcho(head, false, ""));
    int n = PlainHttp.MAX_PIPELINE * 2 + 5;
    try (PlainHttp http = new PlainHttp(2000, 5000)) {
      assertEchoes(n, http.getPipelined(PooledByteBufAllocator.DEFAULT, address, gets(n)));
      assertEchoes(3, http.getPipelined(PooledByteBufAllocator.DEFAULT, address, gets(3)));
    }
    assertEquals(1, connections.get());
    assertEquals(n + 3, requests.get());
    for (int i = 0; i < n; i++) {
      assertTrue(heads.get(i).startsWith("GET /" + i + " HTTP/1.1\r\n"), heads.get(i));
      assertTrue(heads.get(i).contains("\r\nRange: bytes=0-" + i + "\r\n"), heads.get(i));
    }
  }

  /**
   * A server that closes the connection after some answers, saying so or not, leaves the GETs it
   * did not answer to be asked again on a new connection: every answer arrives once, in order.
   */
  @Test
  void pipelinedGetsCutShortByTheServerAreAskedAgain() throws Exception {
    for (boolean saysSo : new boolean[] {false, true}) {
      String address =
          serve(
              (n, head, body) ->
                  pathEcho(head, n % 4 == 0, saysSo && n % 4 == 0 ? "Connection: close\r\n" : ""));
      try (PlainHttp http = new PlainHttp(2000, 5000)) {
        assertEchoes(10, http.getPipelined(PooledByteBufAllocator.DEFAULT, address, gets(10)));
      }
      assertTrue(connections.get() >= 3, connections.get() + " connections");
      stop();
      connections.set(0);
      requests.set(0);
    }
  }

  /**
   * A connection that ends before any answer stops the batch with the failure and the answers read
   * so far; one that never answers times out.
   */
  @Test
  void pipelinedGetsStopWhenANewConnectionAnswersNothing() throws Exception {
    // Answers the first two requests, then closes every connection without answering.
    String address =
        serve((n, head, body) -> n <= 2 ? pathEcho(head, false, "") : new Answer("", true));
    try (PlainHttp http = new PlainHttp(2000, 5000)) {
      PlainHttp.Pipelined p = http.getPipelined(PooledByteBufAllocator.DEFAULT, address, gets(5));
      assertTrue(p.failure() != null, "a failure is given");
      assertEchoes(2, p);
    }
    server.close();
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    String silent = "127.0.0.1:" + server.getLocalPort();
    try (PlainHttp http = new PlainHttp(2000, 300)) {
      PlainHttp.Pipelined p = http.getPipelined(PooledByteBufAllocator.DEFAULT, silent, gets(3));
      assertTrue(p.failure() instanceof SocketTimeoutException, String.valueOf(p.failure()));
      assertEquals(0, p.answers().size());
    }
  }
}
