package io.pulsarha.driver;

/**
 * Java's switches as history events: the providers keep the service URL they moved the client to
 * (getServiceUrl()), set right after the client was updated; it is read every POLL_MS and each change is a
 * {@code switch} event to the cluster of the new URL, with the old one in its detail and the provider's logged
 * decision (see {@link ProviderLog}).
 */
final class SwitchWatch extends Thread {
    static final long POLL_MS = 2;

    private final Clients clients;
    private final DriverConfig config;
    private final History history;
    private final ProviderLog providerLog;
    private volatile boolean running = true;

    SwitchWatch(Clients clients, DriverConfig config, History history, ProviderLog providerLog) {
        super("pulsar-ha-switch-watch");
        setDaemon(true);
        this.clients = clients;
        this.config = config;
        this.history = history;
        this.providerLog = providerLog;
    }

    @Override
    public void run() {
        String current = clients.currentServiceUrl(config);
        while (running) {
            String now = clients.currentServiceUrl(config);
            if (now != null && !now.equals(current)) {
                String from = config.clusterOf(current);
                String to = config.clusterOf(now);
                var detail = History.detail()
                        .put("reason", clients.providerName + " switched")
                        .put("from", from)
                        .put("poll_ms", POLL_MS);
                String decision = providerLog.decision.getAndSet(null);
                if (decision != null) {
                    detail.put("decision", decision);
                }
                history.event(History.nowNs(), "switch", "provider", "cluster", to, "detail", detail.toString());
                current = now;
            }
            try {
                Thread.sleep(POLL_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    void finish() {
        running = false;
        interrupt();
    }
}
