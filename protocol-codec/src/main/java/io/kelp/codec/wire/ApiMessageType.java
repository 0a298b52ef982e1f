package io.kelp.codec.wire;

import java.util.List;
import java.util.function.Supplier;

/**
 * One Kafka API: its key, the versions this codec reads and writes, where flexible encoding starts,
 * and how to make empty request and response bodies.
 */
public record ApiMessageType(
    short apiKey,
    String name,
    short lowestVersion,
    short highestVersion,
    short lowestFlexibleVersion,
    Supplier<ApiMessage> requestFactory,
    Supplier<ApiMessage> responseFactory) {

  /** The key of ApiVersions, whose responses always use response header v0 (KIP-511). */
  public static final short API_VERSIONS_KEY = 18;

  public ApiMessage newRequest() {
    return requestFactory.get();
  }

  public ApiMessage newResponse() {
    return responseFactory.get();
  }

  public boolean isSupported(short version) {
    return version >= lowestVersion && version <= highestVersion;
  }

  public boolean isFlexible(short version) {
    return version >= lowestFlexibleVersion;
  }

  /** Request header v2 for flexible versions, else v1 (v0 was removed in Kafka 4.0). */
  public short requestHeaderVersion(short version) {
    return (short) (isFlexible(version) ? 2 : 1);
  }

  /** Response header v1 for flexible versions, else v0; ApiVersions always uses v0. */
  public short responseHeaderVersion(short version) {
    if (apiKey == API_VERSIONS_KEY) {
      return 0;
    }
    return (short) (isFlexible(version) ? 1 : 0);
  }

  /** An array indexed by API key, with nulls for keys not in {@code types}. */
  public static ApiMessageType[] index(List<ApiMessageType> types) {
    int max = 0;
    for (ApiMessageType t : types) {
      max = Math.max(max, t.apiKey());
    }
    ApiMessageType[] byKey = new ApiMessageType[max + 1];
    for (ApiMessageType t : types) {
      byKey[t.apiKey()] = t;
    }
    return byKey;
  }

  @Override
  public String toString() {
    return name + "(" + apiKey + ")";
  }
}
