package io.kelp.codec.message;

import io.kelp.codec.wire.ApiMessage;
import io.kelp.codec.wire.ApiMessageType;
import io.kelp.codec.wire.RequestHeader;
import io.kelp.codec.wire.WireReader;
import io.netty.buffer.ByteBuf;

/** Parses request frames (the bytes after the int32 size prefix) into typed messages. */
public final class Requests {
  private Requests() {}

  /**
   * Parses one request frame. Never throws on bad input: every problem becomes a status with an
   * error text. Records fields of the body are slices of {@code frame}: keep the frame alive (and
   * unreleased) as long as the body is used.
   */
  public static ParsedRequest parse(ByteBuf frame) {
    WireReader reader = new WireReader(frame);
    RequestHeader header = new RequestHeader();
    header.readCommon(reader);
    if (!reader.ok()) {
      return new ParsedRequest(
          ParsedRequest.Status.MALFORMED_HEADER, header, null, null, reader.error());
    }
    ApiMessageType api = ApiMessageTypes.forKey(header.apiKey());
    if (api == null) {
      return new ParsedRequest(
          ParsedRequest.Status.UNKNOWN_API_KEY,
          header,
          null,
          null,
          "unknown API key " + header.apiKey());
    }
    short version = header.apiVersion();
    if (!api.isSupported(version)) {
      return new ParsedRequest(
          ParsedRequest.Status.UNSUPPORTED_VERSION,
          header,
          api,
          null,
          api
              + " version "
              + version
              + " is outside "
              + api.lowestVersion()
              + "-"
              + api.highestVersion());
    }
    if (api.requestHeaderVersion(version) >= 2) {
      header.readTaggedFields(reader);
      if (!reader.ok()) {
        return new ParsedRequest(
            ParsedRequest.Status.MALFORMED_HEADER, header, api, null, reader.error());
      }
    }
    ApiMessage body = api.newRequest();
    body.read(reader, version);
    if (!reader.ok()) {
      return new ParsedRequest(
          ParsedRequest.Status.MALFORMED_BODY,
          header,
          api,
          null,
          api + " v" + version + ": " + reader.error());
    }
    return new ParsedRequest(ParsedRequest.Status.OK, header, api, body, null);
  }
}
