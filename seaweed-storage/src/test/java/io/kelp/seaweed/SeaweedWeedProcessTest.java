package io.kelp.seaweed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

class SeaweedWeedProcessTest {

  @Test
  void startsRestartsOnTheSameDataAndStops() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    try (WeedProcess weed = WeedProcess.start()) {
      URI file = URI.create("http://" + weed.filerHttpAddress() + "/kelp/probe.txt");
      HttpRequest put =
          HttpRequest.newBuilder(file).PUT(HttpRequest.BodyPublishers.ofString("kept")).build();
      assertTrue(http.send(put, HttpResponse.BodyHandlers.discarding()).statusCode() < 300);
      long firstPid = weed.pid();

      weed.restart();
      assertTrue(weed.pid() != firstPid);
      HttpResponse<String> back =
          http.send(
              HttpRequest.newBuilder(file).GET().build(), HttpResponse.BodyHandlers.ofString());
      assertEquals("kept", back.body());

      weed.stop();
      assertFalse(weed.isRunning());
    }
  }
}
