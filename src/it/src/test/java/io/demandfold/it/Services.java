package io.demandfold.it;

import io.demandfold.local.EtcdServer;
import io.demandfold.local.KafkaBroker;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The Kafka broker and etcd of one test class (see {@link ServicesExtension}), with clients that
 * are closed when the class is done. Tests isolate themselves by {@link #uniqueName(String)} topics
 * and etcd prefixes.
 */
public final class Services implements AutoCloseable {
  private static final AtomicInteger NAMES = new AtomicInteger();
  private static final Duration CLIENT_CLOSE = Duration.ofSeconds(5);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

  private final Backend backend;
  private final List<AutoCloseable> clients = new ArrayList<>();
  private Admin admin;
  private Client etcdClient;

  private Services(Backend backend) {
    this.backend = backend;
  }

  /**
   * Starts a broker and an etcd: local processes, or containers with {@code
   * -Ddemandfold.services=testcontainers}.
   */
  static Services start() {
    return new Services(Backend.start());
  }

  /** Services on {@code backend}, which they close. */
  static Services on(Backend backend) {
    return new Services(backend);
  }

  public String bootstrapServers() {
    return backend.bootstrapServers();
  }

  public String etcdEndpoint() {
    return backend.etcdEndpoint();
  }

  /** Whether {@link #broker()} and {@link #etcd()} are local processes a test may kill. */
  public boolean isLocal() {
    return backend instanceof LocalBackend;
  }

  /** The broker process, to kill or restart in fault tests. */
  public KafkaBroker broker() {
    return backend.broker();
  }

  /** The etcd process, to kill or restart in fault tests. */
  public EtcdServer etcd() {
    return backend.etcd();
  }

  /** {@code base}, a counter and a random suffix: a fresh topic name or etcd prefix. */
  public String uniqueName(String base) {
    byte[] random = new byte[3];
    ThreadLocalRandom.current().nextBytes(random);
    return base + "-" + NAMES.incrementAndGet() + "-" + HexFormat.of().formatHex(random);
  }

  /** An admin client, closed with the services. */
  public synchronized Admin admin() {
    if (admin == null) {
      Properties props = new Properties();
      props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
      admin = track(Admin.create(props));
    }
    return admin;
  }

  public void createTopic(String name, int partitions) {
    createTopic(name, partitions, Map.of());
  }

  /** Creates a topic with replication factor 1 and waits until the controller has it. */
  public void createTopic(String name, int partitions, Map<String, String> configs) {
    NewTopic topic = new NewTopic(name, partitions, (short) 1).configs(configs);
    try {
      admin().createTopics(List.of(topic)).all().get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot create topic " + name, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + name, e);
    }
  }

  /** Settings of an idempotent producer of byte arrays with {@code acks=all}. */
  public Properties producerProps() {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    return props;
  }

  /** A new producer with {@link #producerProps()}, closed with the services if not before. */
  public KafkaProducer<byte[], byte[]> producer() {
    return track(new KafkaProducer<>(producerProps()));
  }

  /**
   * Settings of a consumer of byte arrays in {@code group}: from the earliest offset, committed
   * records only, no auto-commit.
   */
  public Properties consumerProps(String group) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    return props;
  }

  /** A new consumer with {@link #consumerProps(String)}, closed with the services if not before. */
  public KafkaConsumer<byte[], byte[]> consumer(String group) {
    return track(new KafkaConsumer<>(consumerProps(group)));
  }

  /**
   * Every committed record now in {@code topic}, from the beginning of each partition, in partition
   * then offset order.
   */
  public List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(consumerProps(uniqueName("read-all")))) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic, READ_TIMEOUT).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .sorted(Comparator.comparingInt(TopicPartition::partition))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, READ_TIMEOUT);
      long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
      while (partitions.stream()
          .anyMatch(tp -> consumer.position(tp, READ_TIMEOUT) < end.get(tp))) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(
              "cannot read " + topic + " up to " + end + " within " + READ_TIMEOUT);
        }
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    records.sort(
        Comparator.comparingInt(ConsumerRecord<byte[], byte[]>::partition)
            .thenComparingLong(ConsumerRecord::offset));
    return records;
  }

  /** A jetcd client of the etcd, created on first use and closed with the services. */
  public synchronized Client etcdClient() {
    if (etcdClient == null) {
      etcdClient = track(Client.builder().endpoints(etcdEndpoint().split(",")).build());
    }
    return etcdClient;
  }

  /** Closes the clients, then stops the broker and etcd. */
  @Override
  public void close() {
    List<AutoCloseable> toClose;
    synchronized (this) {
      toClose = new ArrayList<>(clients);
      clients.clear();
    }
    try {
      for (int i = toClose.size() - 1; i >= 0; i--) {
        closeQuietly(toClose.get(i));
      }
    } finally {
      backend.close();
    }
  }

  private synchronized <T extends AutoCloseable> T track(T client) {
    clients.add(client);
    return client;
  }

  private static void closeQuietly(AutoCloseable client) {
    try {
      if (client instanceof KafkaProducer<?, ?> producer) {
        producer.close(CLIENT_CLOSE);
      } else if (client instanceof KafkaConsumer<?, ?> consumer) {
        consumer.close(CloseOptions.timeout(CLIENT_CLOSE));
      } else {
        client.close();
      }
    } catch (Exception e) {
      // a client that cannot close must not keep the broker and etcd running
    }
  }
}
