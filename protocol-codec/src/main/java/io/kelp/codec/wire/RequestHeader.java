package io.kelp.codec.wire;

import java.util.ArrayList;
import java.util.List;

/**
 * The header in front of every request body.
 *
 * <pre>
 *  v1: api_key int16 | api_version int16 | correlation_id int32 | client_id nullable string
 *  v2: v1, then a tagged-field section
 * </pre>
 *
 * <p>The client id is an int16-length string even in v2, so any broker can read the header of any
 * request, ApiVersions of an unknown version included. Header v0 (no client id) was removed in
 * Kafka 4.0 and is not accepted.
 */
public final class RequestHeader {
  private short apiKey;
  private short apiVersion;
  private int correlationId;
  private String clientId;
  private List<RawTaggedField> unknownTaggedFields;

  public RequestHeader() {}

  public RequestHeader(short apiKey, short apiVersion, int correlationId, String clientId) {
    this.apiKey = apiKey;
    this.apiVersion = apiVersion;
    this.correlationId = correlationId;
    this.clientId = clientId;
  }

  /**
   * Reads the fields every header version shares (key, version, correlation id, client id). The
   * tagged section of v2 depends on the API's version table, so it is read separately by {@link
   * #readTaggedFields}.
   */
  public void readCommon(WireReader reader) {
    apiKey = reader.readInt16();
    apiVersion = reader.readInt16();
    correlationId = reader.readInt32();
    clientId = reader.readString(false, true, "ClientId");
    unknownTaggedFields = null;
  }

  /** Reads the tagged-field section of header v2; no tags are defined, so all are kept raw. */
  public void readTaggedFields(WireReader reader) {
    int count = reader.readUnsignedVarint();
    for (int i = 0; i < count && reader.ok(); i++) {
      int tag = reader.readUnsignedVarint();
      int size = reader.readUnsignedVarint();
      int end = reader.beginTaggedField(size);
      unknownTaggedFields = reader.readUnknownTaggedField(unknownTaggedFields, tag, size);
      reader.endTaggedField(end, tag);
    }
  }

  /** Reads a whole header of the given version (1 or 2). */
  public void read(WireReader reader, short headerVersion) {
    readCommon(reader);
    if (headerVersion >= 2) {
      readTaggedFields(reader);
    }
  }

  public void write(WireWriter writer, short headerVersion) {
    writer.writeInt16(apiKey);
    writer.writeInt16(apiVersion);
    writer.writeInt32(correlationId);
    writer.writeString(false, clientId, true, "ClientId");
    if (headerVersion >= 2) {
      int count = unknownTaggedFields == null ? 0 : unknownTaggedFields.size();
      writer.writeUnsignedVarint(count);
      writer.writeUnknownTaggedFields(unknownTaggedFields, 0, Integer.MAX_VALUE);
    }
  }

  public short apiKey() {
    return apiKey;
  }

  public short apiVersion() {
    return apiVersion;
  }

  public int correlationId() {
    return correlationId;
  }

  public String clientId() {
    return clientId;
  }

  public List<RawTaggedField> unknownTaggedFields() {
    if (unknownTaggedFields == null) {
      unknownTaggedFields = new ArrayList<>(0);
    }
    return unknownTaggedFields;
  }

  @Override
  public String toString() {
    return "RequestHeader(apiKey="
        + apiKey
        + ", apiVersion="
        + apiVersion
        + ", correlationId="
        + correlationId
        + ", clientId="
        + Wire.quote(clientId)
        + ")";
  }
}
