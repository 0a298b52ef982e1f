package io.kelp.seaweed;

import io.kelp.engine.store.ObjectStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Text in and out of stores and volume servers, for tests. */
final class StoreText {
  private StoreText() {}

  /** {@code s} in UTF-8, in a buffer that needs no release. */
  static ByteBuf text(String s) {
    return Unpooled.wrappedBuffer(s.getBytes(StandardCharsets.UTF_8));
  }

  /** The first MiB of the object at {@code path}, as UTF-8 text. */
  static String readAll(ObjectStore store, String path) throws IOException {
    return string(store.read(path, 0, 1 << 20));
  }

  /** The readable bytes of {@code buffer} as UTF-8 text; releases it. */
  static String string(ByteBuf buffer) {
    try {
      return buffer.toString(StandardCharsets.UTF_8);
    } finally {
      buffer.release();
    }
  }
}
