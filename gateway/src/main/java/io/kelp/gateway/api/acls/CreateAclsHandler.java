package io.kelp.gateway.api.acls;

import io.kelp.codec.message.CreateAclsRequest;
import io.kelp.codec.message.CreateAclsResponse;
import io.kelp.codec.message.CreateAclsResponse.AclCreationResult;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.RequestContext;
import java.util.concurrent.CompletableFuture;

/**
 * CreateAcls (key 30), versions 1-3: each creation fails with SECURITY_DISABLED, as {@link
 * NoAuthorizer} explains; nothing is stored.
 */
public final class CreateAclsHandler extends NoAuthorizer.Handler {
  @Override
  public short apiKey() {
    return 30;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    CreateAclsRequest r = (CreateAclsRequest) request;
    CreateAclsResponse response = new CreateAclsResponse();
    for (int i = 0; i < r.creations().size(); i++) {
      response
          .results()
          .add(
              new AclCreationResult()
                  .setErrorCode(NoAuthorizer.SECURITY_DISABLED)
                  .setErrorMessage(NoAuthorizer.MESSAGE));
    }
    return CompletableFuture.completedFuture(response);
  }
}
