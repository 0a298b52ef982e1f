package io.kelp.gateway.api.incrementalalterconfigs;

import io.kelp.codec.message.IncrementalAlterConfigsRequest;
import io.kelp.codec.message.IncrementalAlterConfigsRequest.AlterConfigsResource;
import io.kelp.codec.message.IncrementalAlterConfigsRequest.AlterableConfig;
import io.kelp.codec.message.IncrementalAlterConfigsResponse;
import io.kelp.codec.message.IncrementalAlterConfigsResponse.AlterConfigsResourceResponse;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.Blocking;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.api.ConfigAlteration;
import io.kelp.gateway.api.ConfigAlteration.Outcome;
import io.kelp.gateway.api.ConfigAlteration.Refused;
import io.kelp.gateway.api.ConfigResources;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.config.ConfigKey;
import io.kelp.gateway.config.ConfigType;
import io.kelp.gateway.config.TopicConfig;
import io.kelp.gateway.config.TopicConfigs;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * IncrementalAlterConfigs (key 44), versions 0-1: SET, DELETE (back to the default), APPEND and
 * SUBTRACT (list configs only, else INVALID_CONFIG) on single topic configs, applied to the catalog
 * and the open partition logs; validate_only checks without changing anything. Unknown keys and bad
 * values are INVALID_CONFIG; a key given twice, a null SET value or an unknown operation is
 * INVALID_REQUEST. Broker resources are refused for any key, as in {@code AlterConfigsHandler}.
 */
public final class IncrementalAlterConfigsHandler implements ApiHandler {
  private static final byte SET = 0;
  private static final byte DELETE = 1;
  private static final byte APPEND = 2;
  private static final byte SUBTRACT = 3;

  @Override
  public short apiKey() {
    return 44;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 1;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    IncrementalAlterConfigsRequest r = (IncrementalAlterConfigsRequest) request;
    return Blocking.run(ctx.broker().blocking(), () -> respond(ctx.broker(), r));
  }

  private IncrementalAlterConfigsResponse respond(
      BrokerServices b, IncrementalAlterConfigsRequest r) {
    Set<String> duplicates =
        ConfigAlteration.duplicates(r.resources(), x -> x.resourceType() + "/" + x.resourceName());
    IncrementalAlterConfigsResponse response = new IncrementalAlterConfigsResponse();
    for (AlterConfigsResource resource : r.resources()) {
      Outcome outcome;
      if (duplicates.contains(resource.resourceType() + "/" + resource.resourceName())) {
        outcome = new Outcome(Errors.INVALID_REQUEST, "Duplicate resource in request.");
      } else {
        outcome = alter(b, resource, r.validateOnly());
      }
      response
          .responses()
          .add(
              new AlterConfigsResourceResponse()
                  .setResourceType(resource.resourceType())
                  .setResourceName(resource.resourceName())
                  .setErrorCode(outcome.errorCode())
                  .setErrorMessage(outcome.message()));
    }
    return response;
  }

  private static Outcome alter(BrokerServices b, AlterConfigsResource resource, boolean validate) {
    switch (resource.resourceType()) {
      case ConfigResources.TOPIC:
        return ConfigAlteration.alterTopic(
            b, resource.resourceName(), current -> apply(current, resource.configs()), validate);
      case ConfigResources.BROKER:
        List<String> keys = new ArrayList<>();
        resource.configs().forEach(c -> keys.add(c.name()));
        return ConfigAlteration.alterBroker(b, resource.resourceName(), keys);
      default:
        return new Outcome(
            Errors.INVALID_REQUEST, "Unsupported resource type " + resource.resourceType());
    }
  }

  /** The explicit configs after the operations; Kafka's rules for each operation. */
  static Map<String, String> apply(Map<String, String> current, List<AlterableConfig> ops)
      throws Refused {
    Set<String> names = new HashSet<>();
    for (AlterableConfig op : ops) {
      if (!names.add(op.name())) {
        throw new Refused(Errors.INVALID_REQUEST, "Error due to duplicate config keys");
      }
    }
    Map<String, String> next = new TreeMap<>(current);
    TopicConfig before = TopicConfig.of(current);
    for (AlterableConfig op : ops) {
      Optional<ConfigKey> key = TopicConfigs.key(op.name());
      if (key.isEmpty()) {
        throw new Refused(Errors.INVALID_CONFIG, "Unknown topic config name: " + op.name());
      }
      switch (op.configOperation()) {
        case SET -> {
          if (op.value() == null) {
            throw new Refused(
                Errors.INVALID_REQUEST, "Null value not supported for : " + op.name());
          }
          next.put(op.name(), op.value());
        }
        case DELETE -> next.remove(op.name());
        case APPEND, SUBTRACT -> {
          if (key.get().type() != ConfigType.LIST) {
            throw new Refused(
                Errors.INVALID_CONFIG,
                "Can't "
                    + (op.configOperation() == APPEND ? "APPEND" : "SUBTRACT")
                    + " to key "
                    + op.name()
                    + " because its type is not LIST.");
          }
          List<String> items = new ArrayList<>(ConfigKey.splitList(before.value(op.name())));
          List<String> given = ConfigKey.splitList(op.value() == null ? "" : op.value());
          if (op.configOperation() == APPEND) {
            for (String g : given) {
              if (!items.contains(g)) {
                items.add(g);
              }
            }
          } else {
            items.removeAll(given);
          }
          next.put(op.name(), String.join(",", items));
        }
        default ->
            throw new Refused(
                Errors.INVALID_REQUEST, "Unknown config operation " + op.configOperation());
      }
    }
    return next;
  }
}
