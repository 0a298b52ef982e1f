package io.kelp.seaweed;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.kelp.seaweed.filer.FilerProto.ObjectTransactionRequest;
import io.kelp.seaweed.filer.FilerProto.ObjectTransactionResponse;
import io.kelp.seaweed.filer.SeaweedFilerGrpc.SeaweedFilerImplBase;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A filer from before batches of transactions answers them UNIMPLEMENTED; the installed weed has
 * them, so this fault comes from a fake filer (FakeOldFiler below) that takes only single
 * transactions.
 */
class TransactionBatcherOldFilerTest {

  /** FakeOldFiler: answers single transactions with success and knows no batches. */
  private static final class FakeOldFiler extends SeaweedFilerImplBase {
    final AtomicInteger singles = new AtomicInteger();

    @Override
    public void objectTransaction(
        ObjectTransactionRequest request, StreamObserver<ObjectTransactionResponse> answer) {
      singles.incrementAndGet();
      answer.onNext(ObjectTransactionResponse.getDefaultInstance());
      answer.onCompleted();
    }
  }

  @Test
  void batchesGoOneByOneToAFilerWithoutThem() throws Exception {
    FakeOldFiler fake = new FakeOldFiler();
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(fake)
            .build()
            .start();
    ExecutorService threads = Executors.newCachedThreadPool();
    try (FilerClient filer =
        new FilerClient("127.0.0.1:1." + server.getPort(), Duration.ofSeconds(10))) {
      TransactionBatcher batcher = new TransactionBatcher(filer);
      batcher.lingerFor(Duration.ofSeconds(30));
      round(batcher, threads);
      assertEquals(3, fake.singles.get(), "the refused batch's transactions, one by one");
      long requests = batcher.requests();
      round(batcher, threads);
      assertEquals(6, fake.singles.get());
      assertEquals(3, batcher.requests() - requests, "no batch tried again");
    } finally {
      threads.shutdownNow();
      server.shutdownNow();
    }
  }

  /** Three writers running at once, each sending one transaction; all answered. */
  private static void round(TransactionBatcher batcher, ExecutorService threads) throws Exception {
    batcher.expect(3);
    List<CompletableFuture<ObjectTransactionResponse>> answers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ObjectTransactionRequest request =
          ObjectTransactionRequest.newBuilder().setLockKey("/old/p" + i).build();
      answers.add(
          CompletableFuture.supplyAsync(
              () -> {
                batcher.started();
                try {
                  return batcher.transact(request);
                } finally {
                  batcher.done();
                }
              },
              threads));
    }
    for (CompletableFuture<ObjectTransactionResponse> a : answers) {
      assertEquals("", a.get(20, TimeUnit.SECONDS).getError());
    }
  }
}
