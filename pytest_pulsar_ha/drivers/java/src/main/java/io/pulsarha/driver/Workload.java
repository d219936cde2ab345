package io.pulsarha.driver;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.MessageIdAdv;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionType;
import org.apache.pulsar.client.api.TypedMessageBuilder;

/**
 * The scenario workload on the Java client, as pytest_pulsar_ha/workload/driver.py runs it on the Python one:
 * open-loop producers (send i issued at start + i / rate with sendAsync, whatever happened to earlier sends; its
 * intended time in the send's detail) and consumers that record every receipt and then acknowledge. Payloads
 * are "producer#seq#" padded with dots to the message size, with properties producer and seq, so that the
 * checks, the dedup and the attribution (which cluster stored a message id's payload) work unchanged.
 */
final class Workload {
    private final DriverConfig config;
    private final Clients clients;
    private final History history;
    private final AtomicBoolean sending = new AtomicBoolean(true);
    private final AtomicBoolean receiving = new AtomicBoolean(true);
    private final List<Producer<byte[]>> producers = new CopyOnWriteArrayList<>();
    private final List<Consumer<byte[]>> consumers = new CopyOnWriteArrayList<>();
    private final List<Thread> producerThreads = new ArrayList<>();
    private final List<Thread> consumerThreads = new ArrayList<>();

    Workload(DriverConfig config, Clients clients, History history) {
        this.config = config;
        this.clients = clients;
        this.history = history;
    }

    void start() throws Exception {
        SubscriptionType type = switch (config.subscriptionType) {
            case "shared" -> SubscriptionType.Shared;
            case "failover" -> SubscriptionType.Failover;
            case "key_shared" -> SubscriptionType.Key_Shared;
            default -> SubscriptionType.Exclusive;
        };
        SubscriptionInitialPosition position = "latest".equals(config.initialPosition)
                ? SubscriptionInitialPosition.Latest : SubscriptionInitialPosition.Earliest;
        for (String topic : config.topics) {
            for (int index = 0; index < config.subscriptions.size(); index++) {
                String subscription = config.subscriptions.get(index);
                String name = "consumer-" + index;
                Consumer<byte[]> consumer = withRetries(() -> clients.consumerClient.newConsumer()
                        .topic(topic)
                        .subscriptionName(subscription)
                        .subscriptionType(type)
                        .consumerName(name)
                        .replicateSubscriptionState(config.replicatedSubscriptions)
                        .subscriptionInitialPosition(position)
                        .subscribe());
                consumers.add(consumer);
                consumerThreads.add(spawn(name, () -> consume(consumer, name, subscription)));
            }
        }
        for (String topic : config.topics) {
            for (int i = 0; i < config.producers; i++) {
                Producer<byte[]> producer = withRetries(() -> clients.client.newProducer()
                        .topic(topic)
                        .sendTimeout(config.sendTimeoutMs, TimeUnit.MILLISECONDS)
                        .enableBatching(false)
                        .blockIfQueueFull(false)
                        .create());
                producers.add(producer);
                String name = "producer-" + (producers.size() - 1);
                producerThreads.add(spawn(name, () -> produce(producer, topic, name)));
            }
        }
    }

    private interface Creation<T> {
        T create() throws PulsarClientException;
    }

    /** Set-up steps retry until the set-up timeout: a cluster that just started may not load a topic at once. */
    private <T> T withRetries(Creation<T> creation) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.setupTimeoutMs);
        while (true) {
            try {
                return creation.create();
            } catch (PulsarClientException e) {
                if (System.nanoTime() + 1_000_000_000L > deadline) {
                    throw e;
                }
                Thread.sleep(1000);
            }
        }
    }

    private static Thread spawn(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    static String messageId(MessageId id) {
        if (id instanceof MessageIdAdv adv) {
            return adv.getLedgerId() + ":" + adv.getEntryId() + ":" + adv.getPartitionIndex();
        }
        return id.toString();
    }

    private void produce(Producer<byte[]> producer, String topic, String name) {
        Random random = new Random((config.seed + "/" + name).hashCode());
        double intervalNs = 1e9 / config.ratePerSecond;
        long originMono = System.nanoTime();
        long originNs = History.nowNs();
        long seq = 0;
        while (true) {
            long intendedNs = (long) (seq * intervalNs);
            long wait = originMono + intendedNs - System.nanoTime();
            if (wait > 0) {
                synchronized (sending) {
                    try {
                        if (sending.get()) {
                            TimeUnit.NANOSECONDS.timedWait(sending, wait);
                        }
                    } catch (InterruptedException e) {
                        break;
                    }
                }
            }
            if (!sending.get()) {
                break;
            }
            if (System.nanoTime() < originMono + intendedNs) {
                continue;  // woken early
            }
            seq++;
            final long n = seq;
            String key = config.keys > 0 ? "k" + random.nextInt(config.keys) : null;
            byte[] payload = payload(name, n);
            String detail = History.detail().put("intended_ns", originNs + intendedNs).toString();
            history.event(History.nowNs(), "send", name,
                    "topic", topic, "producer", name, "seq", n, "key", key, "detail", detail);
            TypedMessageBuilder<byte[]> message = producer.newMessage()
                    .value(payload)
                    .properties(Map.of("producer", name, "seq", Long.toString(n)));
            if (key != null) {
                message.key(key);
            }
            try {
                message.sendAsync().whenComplete((id, error) -> {
                    if (error != null) {
                        history.event(History.nowNs(), "send_error", name, "topic", topic, "producer", name,
                                "seq", n, "key", key, "detail", String.valueOf(error));
                    } else {
                        String size = History.detail().put("payload_size", payload.length).toString();
                        history.event(History.nowNs(), "ack", name, "topic", topic, "producer", name, "seq", n,
                                "key", key, "message_id", messageId(id), "detail", size);
                    }
                });
            } catch (RuntimeException e) {
                history.event(History.nowNs(), "send_error", name, "topic", topic, "producer", name,
                        "seq", n, "key", key, "detail", String.valueOf(e));
            }
        }
        try {
            producer.flushAsync().get(config.sendTimeoutMs > 0 ? config.sendTimeoutMs + 10_000L : 60_000L,
                    TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            System.err.println("pulsar-ha driver: " + name + " flush: " + e);
        }
    }

    private byte[] payload(String name, long seq) {
        byte[] body = (name + "#" + seq + "#").getBytes(StandardCharsets.UTF_8);
        byte[] payload = Arrays.copyOf(body, Math.max(body.length, config.messageSize));
        Arrays.fill(payload, body.length, payload.length, (byte) '.');
        return payload;
    }

    private void consume(Consumer<byte[]> consumer, String name, String subscription) {
        while (receiving.get()) {
            Message<byte[]> message;
            try {
                message = consumer.receive(500, TimeUnit.MILLISECONDS);
            } catch (PulsarClientException e) {
                if (!receiving.get()) {
                    return;
                }
                continue;
            }
            if (message == null) {
                continue;
            }
            String producer = message.getProperty("producer");
            long seq = Long.parseLong(message.getProperties().getOrDefault("seq", "0"));
            String size = History.detail().put("payload_size", message.getData().length).toString();
            history.event(History.nowNs(), "receive", name, "topic", message.getTopicName(),
                    "subscription", subscription, "producer", producer, "seq", seq,
                    "key", message.hasKey() ? message.getKey() : null,
                    "message_id", messageId(message.getMessageId()), "detail", size);
            if (config.consumerDelayMs > 0) {
                try {
                    Thread.sleep(config.consumerDelayMs);
                } catch (InterruptedException e) {
                    return;
                }
            }
            consumer.acknowledgeAsync(message);
        }
    }

    /** Stop issuing sends; return once every producer has flushed (every send acknowledged or failed). */
    void stopSending(long timeoutMs) throws InterruptedException {
        sending.set(false);
        synchronized (sending) {
            sending.notifyAll();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        for (Thread thread : producerThreads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
    }

    /** Stop receiving, then close the producers and consumers, each within the close timeout. */
    void stop() throws InterruptedException {
        sending.set(false);
        synchronized (sending) {
            sending.notifyAll();
        }
        receiving.set(false);
        for (Thread thread : consumerThreads) {
            thread.join(10_000);
        }
        for (Producer<byte[]> producer : producers) {
            closeWithin(producer.closeAsync(), "producer " + producer.getProducerName());
        }
        for (Consumer<byte[]> consumer : consumers) {
            closeWithin(consumer.closeAsync(), "consumer " + consumer.getConsumerName());
        }
    }

    private void closeWithin(java.util.concurrent.CompletableFuture<Void> closing, String what) {
        try {
            closing.get(config.closeTimeoutMs, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            history.control("hung_close", what + ": close() did not return within "
                    + config.closeTimeoutMs / 1000 + "s (abandoned; the client is stuck)");
        } catch (Exception e) {
            System.err.println("pulsar-ha driver: close " + what + ": " + e);
        }
    }
}
