package io.pulsarha.driver;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Authentication;
import org.apache.pulsar.client.api.AuthenticationFactory;
import org.apache.pulsar.client.api.ClientBuilder;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.ServiceUrlProvider;
import org.apache.pulsar.client.impl.AutoClusterFailover;
import org.apache.pulsar.client.impl.ControlledClusterFailover;

/**
 * The Java clients of a run, configured from the scenario's provider block: Java's own AutoClusterFailover or
 * ControlledClusterFailover (the client library's classes, unchanged), or a plain service URL.
 */
final class Clients implements AutoCloseable {
    final PulsarClient client;
    final PulsarClient consumerClient;
    final ServiceUrlProvider provider;
    final String providerName;
    /** System.nanoTime() when the client handed itself to the provider (its checks run from then on), or -1 */
    volatile long providerInitializedNanos = -1;

    Clients(DriverConfig config) throws java.io.IOException {
        DriverConfig.Provider spec = config.provider;
        String primary = config.primary();
        DriverConfig.Cluster first = config.clusters.get(primary);
        ClientBuilder builder = base(config, first);
        switch (spec.kind) {
            case "auto" -> {
                List<String> secondaries = new ArrayList<>();
                Map<String, Authentication> auths = new HashMap<>();
                for (String name : spec.secondaries) {
                    DriverConfig.Cluster cluster = config.clusters.get(name);
                    secondaries.add(cluster.serviceUrl);
                    if (cluster.token != null) {
                        auths.put(cluster.serviceUrl, AuthenticationFactory.token(cluster.token));
                    }
                }
                var auto = AutoClusterFailover.builder()
                        .primary(first.serviceUrl)
                        .secondary(secondaries)
                        .checkInterval(spec.checkIntervalMs, TimeUnit.MILLISECONDS)
                        .failoverDelay(spec.failoverDelayMs, TimeUnit.MILLISECONDS)
                        .switchBackDelay(spec.switchBackDelayMs, TimeUnit.MILLISECONDS);
                if (!auths.isEmpty()) {
                    auto = auto.secondaryAuthentication(auths);
                }
                provider = auto.build();
                providerName = "java AutoClusterFailover";
            }
            case "controlled" -> {
                provider = ControlledClusterFailover.builder()
                        .defaultServiceUrl(first.serviceUrl)
                        .urlProvider(spec.urlProvider)
                        .checkInterval(spec.checkIntervalMs, TimeUnit.MILLISECONDS)
                        .build();
                providerName = "java ControlledClusterFailover";
            }
            default -> {
                provider = null;
                providerName = "none";
            }
        }
        if (provider != null) {
            builder.serviceUrlProvider(new NotingInitialize(provider, this));
        } else {
            builder.serviceUrl(first.serviceUrl);
        }
        client = builder.build();
        if (config.consumeFrom != null) {
            DriverConfig.Cluster direct = config.clusters.get(config.consumeFrom);
            consumerClient = base(config, direct).serviceUrl(direct.serviceUrl).build();
        } else {
            consumerClient = client;
        }
    }

    private static ClientBuilder base(DriverConfig config, DriverConfig.Cluster cluster) {
        ClientBuilder builder = PulsarClient.builder()
                .operationTimeout(config.operationTimeoutMs, TimeUnit.MILLISECONDS);
        if (config.maxBackoffMs > 0) {
            builder.startingBackoffInterval(Math.min(100, config.maxBackoffMs), TimeUnit.MILLISECONDS)
                    .maxBackoffInterval(config.maxBackoffMs, TimeUnit.MILLISECONDS);
        }
        if (config.listenerName != null) {
            builder.listenerName(config.listenerName);
        }
        if (cluster.token != null) {
            builder.authentication(AuthenticationFactory.token(cluster.token));
        }
        return builder;
    }

    /** The service URL the provider has the client on now (the primary's without a provider). */
    String currentServiceUrl(DriverConfig config) {
        return provider != null ? provider.getServiceUrl() : config.clusters.get(config.primary()).serviceUrl;
    }

    @Override
    public void close() {
        closeQuietly(consumerClient);
        if (consumerClient != client) {
            closeQuietly(client);
        }
    }

    private static void closeQuietly(PulsarClient pulsarClient) {
        try {
            pulsarClient.closeAsync().get(15, TimeUnit.SECONDS);
        } catch (Exception e) {
            System.err.println("pulsar-ha driver: client close: " + e);
        }
    }

    /**
     * The provider as the client sees it: the same calls, and the moment of initialize() noted. Java's
     * AutoClusterFailover starts its checks there (scheduleAtFixedRate, first one interval later), so the
     * harness knows when it checks.
     */
    private static final class NotingInitialize implements ServiceUrlProvider {
        private final ServiceUrlProvider delegate;
        private final Clients owner;

        NotingInitialize(ServiceUrlProvider delegate, Clients owner) {
            this.delegate = delegate;
            this.owner = owner;
        }

        @Override
        public void initialize(PulsarClient client) {
            owner.providerInitializedNanos = System.nanoTime();
            delegate.initialize(client);
        }

        @Override
        public String getServiceUrl() {
            return delegate.getServiceUrl();
        }

        @Override
        public void close() throws Exception {
            delegate.close();
        }
    }
}
