package io.kelp.gateway.api.acls;

import io.kelp.gateway.api.ApiHandler;

/**
 * What the ACL APIs answer while Kelp has no authorizer: SECURITY_DISABLED with Kafka's own
 * message, which is what a Kafka broker without {@code authorizer.class.name} answers. Admin
 * clients turn it into {@code SecurityDisabledException}, which tools such as MirrorMaker 2's ACL
 * sync take to mean "ACLs are off" and stop asking; an API missing from ApiVersions would instead
 * be an unsupported version error, which they report as a failure.
 */
final class NoAuthorizer {
  static final short SECURITY_DISABLED = 54;
  static final String MESSAGE = "No Authorizer is configured.";

  private NoAuthorizer() {}

  /** The versions Kafka 4 serves for DescribeAcls, CreateAcls and DeleteAcls. */
  abstract static class Handler implements ApiHandler {
    @Override
    public short minVersion() {
      return 1;
    }

    @Override
    public short maxVersion() {
      return 3;
    }
  }
}
