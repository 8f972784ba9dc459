package io.demandfold.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(ServicesExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ServicesSmokeIT {
  private static final long TIMEOUT_S = 30;

  @Test
  void shouldProduceAndConsumeWithAnIdempotentProducer(Services services) throws Exception {
    String topic = services.uniqueName("smoke");
    services.createTopic(topic, 2);

    try (KafkaProducer<byte[], byte[]> producer = services.producer()) {
      RecordMetadata first =
          producer.send(new ProducerRecord<>(topic, 1, bytes("k"), bytes("v1"))).get();
      RecordMetadata second =
          producer.send(new ProducerRecord<>(topic, 1, bytes("k"), bytes("v2"))).get();
      assertThat(List.of(first.offset(), second.offset())).containsExactly(0L, 1L);
    }

    assertThat(services.readAll(topic))
        .extracting(r -> r.partition() + ":" + text(r.key()) + "=" + text(r.value()))
        .containsExactly("1:k=v1", "1:k=v2");
  }

  @Test
  void shouldShowCommittedAndHideAbortedTransactions(Services services) {
    String topic = services.uniqueName("tx");
    services.createTopic(topic, 1);
    Properties props = services.producerProps();
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, services.uniqueName("smoke-tx"));
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);

    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, bytes("k"), bytes("aborted")));
      producer.flush();
      producer.abortTransaction();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, bytes("k"), bytes("committed")));
      producer.commitTransaction();
    }

    List<ConsumerRecord<byte[], byte[]>> records = services.readAll(topic);
    assertThat(records).extracting(r -> text(r.value())).containsExactly("committed");
    assertThat(records.get(0).offset()).as("after the aborted record and its marker").isEqualTo(2);
  }

  @Test
  void shouldPutGetAndCompareAndSwapInEtcd(Services services) throws Exception {
    KV kv = services.etcdClient().getKVClient();
    ByteSequence key = bytesOf(services.uniqueName("/smoke") + "/shard");

    kv.put(key, bytesOf("v1")).get(TIMEOUT_S, TimeUnit.SECONDS);
    GetResponse got = kv.get(key).get(TIMEOUT_S, TimeUnit.SECONDS);
    assertThat(got.getKvs())
        .singleElement()
        .satisfies(k -> assertThat(text(k.getValue())).isEqualTo("v1"));
    long revision = got.getKvs().get(0).getModRevision();

    TxnResponse won = swap(kv, key, revision, "v2");
    TxnResponse lost = swap(kv, key, revision, "v3");

    assertThat(won.isSucceeded()).isTrue();
    assertThat(lost.isSucceeded()).as("CAS on a stale revision").isFalse();
    assertThat(text(lost.getGetResponses().get(0).getKvs().get(0).getValue())).isEqualTo("v2");
    assertThat(text(kv.get(key).get(TIMEOUT_S, TimeUnit.SECONDS).getKvs().get(0).getValue()))
        .isEqualTo("v2");
  }

  @Test
  void shouldServeTheSameDataAfterKillAndRestart(Services services) throws Exception {
    assumeTrue(services.isLocal(), "kills processes, which only the local services have");
    String topic = services.uniqueName("crash");
    services.createTopic(topic, 1);
    try (KafkaProducer<byte[], byte[]> producer = services.producer()) {
      producer.send(new ProducerRecord<>(topic, bytes("k"), bytes("before"))).get();
    }
    KV kv = services.etcdClient().getKVClient();
    ByteSequence key = bytesOf(services.uniqueName("/crash") + "/shard");
    kv.put(key, bytesOf("kept")).get(TIMEOUT_S, TimeUnit.SECONDS);
    long etcdPid = services.etcd().pid();
    long brokerPid = services.broker().pid();
    String bootstrap = services.bootstrapServers();
    String endpoint = services.etcdEndpoint();

    services.etcd().kill();
    assertThat(services.etcd().isRunning()).isFalse();
    assertThat(isAlive(etcdPid)).isFalse();
    services.etcd().restart();
    services.broker().kill();
    assertThat(services.broker().isRunning()).isFalse();
    assertThat(isAlive(brokerPid)).isFalse();
    services.broker().restart();

    assertThat(services.etcd().pid()).isNotEqualTo(etcdPid);
    assertThat(services.broker().pid()).isNotEqualTo(brokerPid);
    assertThat(services.etcdEndpoint()).isEqualTo(endpoint);
    assertThat(services.bootstrapServers()).isEqualTo(bootstrap);
    assertThat(text(kv.get(key).get(TIMEOUT_S, TimeUnit.SECONDS).getKvs().get(0).getValue()))
        .isEqualTo("kept");
    try (KafkaProducer<byte[], byte[]> producer = services.producer()) {
      producer.send(new ProducerRecord<>(topic, bytes("k"), bytes("after"))).get();
    }
    assertThat(services.readAll(topic))
        .extracting(r -> text(r.value()))
        .containsExactly("before", "after");
  }

  private static TxnResponse swap(KV kv, ByteSequence key, long revision, String value)
      throws Exception {
    return kv.txn()
        .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(revision)))
        .Then(Op.put(key, bytesOf(value), PutOption.DEFAULT))
        .Else(Op.get(key, GetOption.DEFAULT))
        .commit()
        .get(TIMEOUT_S, TimeUnit.SECONDS);
  }

  private static boolean isAlive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static ByteSequence bytesOf(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private static String text(ByteSequence b) {
    return b.toString(StandardCharsets.UTF_8);
  }
}
