package io.kelp.seaweed;

import static io.kelp.seaweed.StoreText.string;
import static io.kelp.seaweed.StoreText.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kelp.seaweed.filer.FilerProto.AssignVolumeRequest;
import io.kelp.seaweed.filer.FilerProto.AssignVolumeResponse;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link VolumeClient#closeOff} against a real volume server: after it, a file id either holds the
 * bytes uploaded under it, or can never hold any.
 */
class VolumeKeyClosingTest {
  private static WeedProcess weed;
  private static FilerClient filer;
  private static VolumeClient volumes;

  @BeforeAll
  static void start() throws Exception {
    weed = WeedProcess.start();
    filer = new FilerClient(weed.filerAddress(), Duration.ofSeconds(10));
    volumes = new VolumeClient(false, PooledByteBufAllocator.DEFAULT);
  }

  @AfterAll
  static void stop() throws Exception {
    volumes.close();
    filer.close();
    weed.close();
  }

  /** Four consecutive ids of one assignment, as the store reserves them. */
  private static AssignVolumeResponse assignFour() throws IOException {
    return filer.assign(
        AssignVolumeRequest.newBuilder().setCount(4).setPath("/topics/kafka/closing/0").build());
  }

  private static String read(String url, String fileId, int length) throws IOException {
    return string(volumes.read(url, fileId, 0, length));
  }

  @Test
  void anIdClosedBeforeItsUploadRefusesTheUpload() throws Exception {
    AssignVolumeResponse assigned = assignFour();
    String url = assigned.getLocation().getUrl();
    FileIdPool.FileId id = FileIdPool.FileId.of(assigned, 2);

    assertEquals(VolumeClient.KeyState.CLOSED, volumes.closeOff(url, id.fileId()));
    IOException refused =
        assertThrows(
            IOException.class, () -> volumes.upload(url, id.uploadId(), "", text("late bytes")));
    assertTrue(refused.getMessage().contains("cookie"), refused.getMessage());
    assertThrows(
        VolumeClient.ChunkNotFoundException.class, () -> volumes.read(url, id.fileId(), 0, 1));
    // Settling it again changes nothing.
    assertEquals(VolumeClient.KeyState.CLOSED, volumes.closeOff(url, id.fileId()));
  }

  @Test
  void anIdUploadedBeforeItIsClosedKeepsItsBytes() throws Exception {
    AssignVolumeResponse assigned = assignFour();
    String url = assigned.getLocation().getUrl();
    FileIdPool.FileId id = FileIdPool.FileId.of(assigned, 1);
    volumes.upload(url, id.uploadId(), "", text("acknowledged bytes"));

    assertEquals(VolumeClient.KeyState.TAKEN, volumes.closeOff(url, id.fileId()));
    assertEquals("acknowledged bytes", read(url, id.fileId(), 18));
    // The writer may upload the same bytes again (a retry after a lost answer).
    volumes.upload(url, id.uploadId(), "", text("acknowledged bytes"));
    assertEquals("acknowledged bytes", read(url, id.fileId(), 18));
  }

  @Test
  void closingOneIdLeavesTheOthersOfItsAssignmentAlone() throws Exception {
    AssignVolumeResponse assigned = assignFour();
    String url = assigned.getLocation().getUrl();
    volumes.closeOff(url, FileIdPool.FileId.of(assigned, 0).fileId());
    FileIdPool.FileId next = FileIdPool.FileId.of(assigned, 1);
    volumes.upload(url, next.uploadId(), "", text("next"));
    assertEquals("next", read(url, next.fileId(), 4));
  }

  @Test
  void anUnreachableVolumeServerIsAnErrorNotAnAnswer() throws Exception {
    FileIdPool.FileId id = FileIdPool.FileId.of(assignFour(), 3);
    // Nothing listens on port 1 of this host: the connection is refused.
    assertThrows(IOException.class, () -> volumes.closeOff("127.0.0.1:1", id.fileId()));
  }

  @Test
  void theMarkerIdIsTheSameKeyUnderAnotherCookie() {
    assertEquals("3,01fe637037d6", VolumeClient.markerOf("3,01fe9c8fc829"));
    String id = "7,02141a619b";
    String marker = VolumeClient.markerOf(id);
    assertEquals("7,02", marker.substring(0, 4));
    assertNotEquals(id, marker);
    assertEquals(0xffffffffL, Long.parseLong(marker.substring(4), 16) ^ 0x141a619bL);
    // A flipped cookie of 0 would read as "no cookie": it becomes 1.
    assertEquals("5,0a00000001", VolumeClient.markerOf("5,0affffffff"));
  }
}
