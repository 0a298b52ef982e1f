package io.kelp.gateway.api.alterconfigs;

import io.kelp.codec.message.AlterConfigsRequest;
import io.kelp.codec.message.AlterConfigsRequest.AlterConfigsResource;
import io.kelp.codec.message.AlterConfigsRequest.AlterableConfig;
import io.kelp.codec.message.AlterConfigsResponse;
import io.kelp.codec.message.AlterConfigsResponse.AlterConfigsResourceResponse;
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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * AlterConfigs (key 33), versions 0-2: replaces a topic's whole set of explicit configs (keys not
 * given return to their defaults), applied to the catalog and to the open partition logs at once;
 * validate_only checks without changing anything. Unknown keys and bad values are INVALID_CONFIG,
 * null values INVALID_REQUEST, a resource named twice INVALID_REQUEST. Broker resources: Kelp has
 * no dynamic broker configs, so any key is INVALID_REQUEST (Kafka's answer for keys it cannot
 * update dynamically); other resource types are INVALID_REQUEST.
 */
public final class AlterConfigsHandler implements ApiHandler {

  @Override
  public short apiKey() {
    return 33;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 2;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    AlterConfigsRequest r = (AlterConfigsRequest) request;
    return Blocking.run(ctx.broker().blocking(), () -> respond(ctx.broker(), r));
  }

  private AlterConfigsResponse respond(BrokerServices b, AlterConfigsRequest r) {
    Set<String> duplicates =
        ConfigAlteration.duplicates(r.resources(), x -> x.resourceType() + "/" + x.resourceName());
    AlterConfigsResponse response = new AlterConfigsResponse();
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
            b, resource.resourceName(), current -> replacement(resource.configs()), validate);
      case ConfigResources.BROKER:
        List<String> keys = new ArrayList<>();
        resource.configs().forEach(c -> keys.add(c.name()));
        return ConfigAlteration.alterBroker(b, resource.resourceName(), keys);
      default:
        return new Outcome(
            Errors.INVALID_REQUEST, "Unsupported resource type " + resource.resourceType());
    }
  }

  private static Map<String, String> replacement(List<AlterableConfig> configs) throws Refused {
    Map<String, String> next = new LinkedHashMap<>();
    for (AlterableConfig c : configs) {
      if (c.value() == null) {
        throw new Refused(Errors.INVALID_REQUEST, "Null value not supported for : " + c.name());
      }
      if (next.put(c.name(), c.value()) != null) {
        throw new Refused(Errors.INVALID_REQUEST, "Duplicate config key " + c.name());
      }
    }
    return next;
  }
}
