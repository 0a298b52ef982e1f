package io.kelp.gateway.api.acls;

import io.kelp.codec.message.DescribeAclsResponse;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.RequestContext;
import java.util.concurrent.CompletableFuture;

/** DescribeAcls (key 29), versions 1-3: SECURITY_DISABLED, as {@link NoAuthorizer} explains. */
public final class DescribeAclsHandler extends NoAuthorizer.Handler {
  @Override
  public short apiKey() {
    return 29;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    return CompletableFuture.completedFuture(
        new DescribeAclsResponse()
            .setErrorCode(NoAuthorizer.SECURITY_DISABLED)
            .setErrorMessage(NoAuthorizer.MESSAGE));
  }
}
