package io.pulsarha.driver;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The pytest-pulsar-ha Java client driver: {@code java -cp ... io.pulsarha.driver.Main CONFIG.json}.
 *
 * <p>Runs the configured workload on the Java client and writes history events as JSON lines on stdout
 * (logs go to stderr). Commands on stdin, one a line: {@code stop_sending} (stop issuing sends, flush, then
 * answer the control line {@code sending_stopped}) and {@code stop} (close everything, answer {@code stopped},
 * exit 0). Closing stdin is a stop: the driver never outlives the process that started it. Exit 2 on a bad
 * configuration, 3 when the workload could not start.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        ProviderLog providerLog = new ProviderLog(System.err);
        System.setErr(new PrintStream(providerLog, true, StandardCharsets.UTF_8));  // before any logger exists
        History history = new History(System.out);
        if (args.length != 1) {
            history.control("error", "usage: io.pulsarha.driver.Main CONFIG.json");
            System.exit(2);
        }
        DriverConfig config;
        try {
            config = DriverConfig.read(new File(args[0]));
        } catch (Exception e) {
            history.control("error", args[0] + ": " + e.getMessage());
            System.exit(2);
            return;
        }
        Clients clients;
        Workload workload;
        SwitchWatch watch;
        try {
            providerLog.attach(history, config);
            clients = new Clients(config);
            watch = new SwitchWatch(clients, config, history, providerLog);
            watch.start();
            workload = new Workload(config, clients, history);
            workload.start();
        } catch (Exception e) {
            history.control("error", "the workload could not start: " + e);
            System.exit(3);
            return;
        }
        history.control("provider_initialized_ns", Long.toString(clients.providerInitializedNanos));
        history.control("started", clients.providerName);
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        long flushTimeout = config.sendTimeoutMs > 0 ? config.sendTimeoutMs + 10_000L : 60_000L;
        boolean stopped = false;
        while (!stopped && (line = commands.readLine()) != null) {
            switch (line.trim()) {
                case "stop_sending" -> {
                    workload.stopSending(flushTimeout);
                    history.control("sending_stopped", null);
                }
                case "stop" -> stopped = true;
                case "" -> { }
                default -> history.control("error", "unknown command " + line.trim());
            }
        }
        workload.stopSending(flushTimeout);
        workload.stop();
        watch.finish();
        clients.close();
        if (clients.provider != null) {
            clients.provider.close();
        }
        history.control("stopped", null);
        System.exit(0);
    }
}
