package io.kelp.gateway.api.listgroups;

import io.kelp.codec.message.ListGroupsRequest;
import io.kelp.codec.message.ListGroupsResponse;
import io.kelp.codec.message.ListGroupsResponse.ListedGroup;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.coordinator.Group;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * ListGroups (key 16), versions 0-5: every group this broker coordinates, except deleted ones. v4
 * filters by state and v5 by type (classic, consumer), both case-insensitive as in Kafka; an
 * unknown type in the filter matches nothing.
 */
public final class ListGroupsHandler implements ApiHandler {

  @Override
  public short apiKey() {
    return 16;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 5;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    ListGroupsRequest r = (ListGroupsRequest) request;
    Set<String> states = lower(r.statesFilter());
    Set<String> types = lower(r.typesFilter());
    if (ctx.broker().groups().loadingAny()) {
      // As Kafka answers while a coordinator partition loads; clients retry.
      return CompletableFuture.completedFuture(
          new ListGroupsResponse().setErrorCode(Errors.COORDINATOR_LOAD_IN_PROGRESS));
    }
    // Off the network thread: reading a group's state takes its monitor, held while it writes.
    return ctx.broker()
        .groupRequest(
            null,
            "ListGroups",
            () -> respond(ctx, states, types),
            () -> new ListGroupsResponse().setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE));
  }

  private static ApiMessage respond(RequestContext ctx, Set<String> states, Set<String> types) {
    ListGroupsResponse response = new ListGroupsResponse();
    List<Group> groups = new ArrayList<>(ctx.broker().groups().groups());
    groups.sort(Comparator.comparing(Group::groupId));
    for (Group g : groups) {
      String state;
      boolean dead;
      synchronized (g) {
        state = g.state();
        dead = g.isDead();
      }
      if (dead
          || (!states.isEmpty() && !states.contains(state.toLowerCase(Locale.ROOT)))
          || (!types.isEmpty() && !types.contains(g.groupType()))) {
        continue;
      }
      response
          .groups()
          .add(
              new ListedGroup()
                  .setGroupId(g.groupId())
                  .setProtocolType(g.protocolType())
                  .setGroupState(state)
                  .setGroupType(g.groupType()));
    }
    return response;
  }

  private static Set<String> lower(List<String> values) {
    return values == null
        ? Set.of()
        : values.stream().map(v -> v.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
  }
}
