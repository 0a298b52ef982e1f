package io.kelp.gateway.api.apiversions;

import io.kelp.codec.message.ApiVersionsRequest;
import io.kelp.codec.message.ApiVersionsResponse;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.ApiHandlers;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

/**
 * ApiVersions (key 18), versions 0-4: the advertised range of every API in the handler table, and
 * nothing else. A request at a version above 4 is answered at v0 with UNSUPPORTED_VERSION and the
 * same list, as Kafka does, so the client retries at a version we know. v3+ client software names
 * and versions that break Kafka's pattern get INVALID_REQUEST, as in Kafka.
 *
 * <p>Deviation: no supported or finalized features are listed. That keeps Java 4 clients on
 * transactions v1 and Produce v11 or lower, which is what Kelp serves.
 */
public final class ApiVersionsHandler implements ApiHandler {
  private static final Pattern SOFTWARE =
      Pattern.compile("[a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?");

  private final ApiHandlers table;

  /** A handler that answers from {@code table}, which it also registers itself in. */
  public ApiVersionsHandler(ApiHandlers table) {
    this.table = table;
  }

  @Override
  public short apiKey() {
    return 18;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 4;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    ApiVersionsResponse response = new ApiVersionsResponse().setApiKeys(advertised());
    if (ctx.apiVersion() > maxVersion()) {
      response.setErrorCode(Errors.UNSUPPORTED_VERSION);
    } else if (ctx.apiVersion() >= 3 && !validSoftware((ApiVersionsRequest) request)) {
      response.setErrorCode(Errors.INVALID_REQUEST);
    }
    return CompletableFuture.completedFuture(response);
  }

  private static boolean validSoftware(ApiVersionsRequest request) {
    return SOFTWARE.matcher(request.clientSoftwareName()).matches()
        && SOFTWARE.matcher(request.clientSoftwareVersion()).matches();
  }

  private List<ApiVersionsResponse.ApiVersion> advertised() {
    List<ApiVersionsResponse.ApiVersion> out = new ArrayList<>();
    for (ApiHandler h : table.all()) {
      out.add(
          new ApiVersionsResponse.ApiVersion()
              .setApiKey(h.apiKey())
              .setMinVersion(h.minVersion())
              .setMaxVersion(h.maxVersion()));
    }
    return out;
  }
}
