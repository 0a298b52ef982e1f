package io.kelp.gateway.api.describeconfigs;

import io.kelp.codec.message.DescribeConfigsRequest;
import io.kelp.codec.message.DescribeConfigsRequest.DescribeConfigsResource;
import io.kelp.codec.message.DescribeConfigsResponse;
import io.kelp.codec.message.DescribeConfigsResponse.DescribeConfigsResourceResult;
import io.kelp.codec.message.DescribeConfigsResponse.DescribeConfigsResult;
import io.kelp.codec.message.DescribeConfigsResponse.DescribeConfigsSynonym;
import io.kelp.codec.wire.ApiMessage;
import io.kelp.gateway.api.ApiHandler;
import io.kelp.gateway.api.BrokerServices;
import io.kelp.gateway.api.ConfigResources;
import io.kelp.gateway.api.Errors;
import io.kelp.gateway.api.RequestContext;
import io.kelp.gateway.config.ConfigKey;
import io.kelp.gateway.config.ConfigSource;
import io.kelp.gateway.config.TopicConfig;
import io.kelp.gateway.config.TopicConfigs;
import io.kelp.gateway.topic.LiveTopic;
import io.kelp.gateway.topic.TopicNames;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeConfigs (key 32), versions 1-4, for TOPIC and BROKER resources. A topic shows every topic
 * config Kelp knows with its value in effect and its source (DYNAMIC_TOPIC_CONFIG when set on the
 * topic, DEFAULT_CONFIG otherwise); synonyms, when asked for, list the topic setting and the
 * broker-wide default it overrides; config types and documentation from v3. A broker (named by its
 * id) shows its read-only settings under Kafka's names; the empty name (cluster-wide dynamic
 * defaults) has none. Requested keys Kelp does not know are left out, as Kafka does.
 *
 * <p>Deviation: other resource types (broker loggers, groups, client metrics) are INVALID_REQUEST.
 */
public final class DescribeConfigsHandler implements ApiHandler {

  @Override
  public short apiKey() {
    return 32;
  }

  @Override
  public short minVersion() {
    return 1;
  }

  @Override
  public short maxVersion() {
    return 4;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(RequestContext ctx, ApiMessage request) {
    DescribeConfigsRequest r = (DescribeConfigsRequest) request;
    DescribeConfigsResponse response = new DescribeConfigsResponse();
    for (DescribeConfigsResource resource : r.resources()) {
      response.results().add(describe(ctx.broker(), ctx.apiVersion(), r, resource));
    }
    return CompletableFuture.completedFuture(response);
  }

  private DescribeConfigsResult describe(
      BrokerServices b, short v, DescribeConfigsRequest r, DescribeConfigsResource resource) {
    DescribeConfigsResult out =
        new DescribeConfigsResult()
            .setResourceType(resource.resourceType())
            .setResourceName(resource.resourceName());
    Set<String> keys =
        resource.configurationKeys() == null ? null : new HashSet<>(resource.configurationKeys());
    boolean docs = v >= 3 && r.includeDocumentation();
    switch (resource.resourceType()) {
      case ConfigResources.TOPIC ->
          describeTopic(b, v, r, resource.resourceName(), keys, docs, out);
      case ConfigResources.BROKER ->
          describeBroker(b, r.includeSynonyms(), resource.resourceName(), keys, docs, out);
      default ->
          out.setErrorCode(Errors.INVALID_REQUEST)
              .setErrorMessage("Unsupported resource type " + resource.resourceType());
    }
    return out;
  }

  private static void describeTopic(
      BrokerServices b,
      short v,
      DescribeConfigsRequest r,
      String name,
      Set<String> keys,
      boolean docs,
      DescribeConfigsResult out) {
    String problem = TopicNames.problem(name);
    if (problem != null) {
      out.setErrorCode(Errors.INVALID_TOPIC_EXCEPTION).setErrorMessage(problem);
      return;
    }
    Optional<LiveTopic> topic = b.topics().get(name);
    if (topic.isEmpty()) {
      out.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION)
          .setErrorMessage("Topic '" + name + "' does not exist.");
      return;
    }
    TopicConfig config = topic.get().config();
    for (ConfigKey key : TopicConfigs.all()) {
      if (keys != null && !keys.contains(key.name())) {
        continue;
      }
      boolean set = config.isSet(key.name());
      DescribeConfigsResourceResult entry =
          new DescribeConfigsResourceResult()
              .setName(key.name())
              .setValue(config.value(key.name()))
              .setReadOnly(false)
              .setIsSensitive(false)
              .setConfigSource(
                  set ? ConfigSource.DYNAMIC_TOPIC_CONFIG : ConfigSource.DEFAULT_CONFIG)
              .setConfigType(key.type().wireId())
              .setDocumentation(docs ? key.documentation() : null);
      if (r.includeSynonyms()) {
        if (set) {
          entry
              .synonyms()
              .add(
                  new DescribeConfigsSynonym()
                      .setName(key.name())
                      .setValue(config.value(key.name()))
                      .setSource(ConfigSource.DYNAMIC_TOPIC_CONFIG));
        }
        if (key.brokerSynonym() != null) {
          entry
              .synonyms()
              .add(
                  new DescribeConfigsSynonym()
                      .setName(key.brokerSynonym())
                      .setValue(key.defaultValue())
                      .setSource(ConfigSource.DEFAULT_CONFIG));
        }
      }
      out.configs().add(entry);
    }
  }

  private static void describeBroker(
      BrokerServices b,
      boolean synonyms,
      String name,
      Set<String> keys,
      boolean docs,
      DescribeConfigsResult out) {
    String problem = ConfigResources.brokerNameProblem(name, b.brokerId());
    if (problem != null) {
      out.setErrorCode(Errors.INVALID_REQUEST).setErrorMessage(problem);
      return;
    }
    if (name.isEmpty()) {
      return;
    }
    List<BrokerConfigEntries.Entry> entries = BrokerConfigEntries.of(b);
    for (BrokerConfigEntries.Entry e : entries) {
      if (keys != null && !keys.contains(e.name())) {
        continue;
      }
      DescribeConfigsResourceResult entry =
          new DescribeConfigsResourceResult()
              .setName(e.name())
              .setValue(e.value())
              .setReadOnly(true)
              .setIsSensitive(false)
              .setConfigSource(e.source())
              .setConfigType(e.type().wireId())
              .setDocumentation(docs ? e.documentation() : null);
      if (synonyms) {
        entry
            .synonyms()
            .add(
                new DescribeConfigsSynonym()
                    .setName(e.name())
                    .setValue(e.value())
                    .setSource(e.source()));
      }
      out.configs().add(entry);
    }
  }
}
