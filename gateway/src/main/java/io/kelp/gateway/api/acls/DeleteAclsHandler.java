package io.kelp.gateway.api.acls;

import io.kelp.codec.message.DeleteAclsRequest;
import io.kelp.codec.message.DeleteAclsResponse;
import io.kelp.codec.message.DeleteAclsResponse.DeleteAclsFilterResult;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.RequestContext;
import java.util.concurrent.CompletableFuture;

/**
 * DeleteAcls (key 31), versions 1-3: each filter fails with SECURITY_DISABLED and matches nothing,
 * as {@link NoAuthorizer} explains.
 */
public final class DeleteAclsHandler extends NoAuthorizer.Handler {
  @Override
  public short apiKey() {
    return 31;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    DeleteAclsRequest r = (DeleteAclsRequest) request;
    DeleteAclsResponse response = new DeleteAclsResponse();
    for (int i = 0; i < r.filters().size(); i++) {
      response
          .filterResults()
          .add(
              new DeleteAclsFilterResult()
                  .setErrorCode(NoAuthorizer.SECURITY_DISABLED)
                  .setErrorMessage(NoAuthorizer.MESSAGE));
    }
    return CompletableFuture.completedFuture(response);
  }
}
