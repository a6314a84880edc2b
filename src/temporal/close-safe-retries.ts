import { InterceptingCall, ListenerBuilder, RequesterBuilder } from '@grpc/grpc-js';
import type { Interceptor, Metadata, StatusObject } from '@grpc/grpc-js';
import { defaultGrpcRetryOptions, type GrpcRetryOptions } from '@temporalio/client';

/**
 * The SDK's gRPC retry interceptor, made safe to close under. The SDK's own one waits for a retry on a bare
 * `setTimeout` that nothing can cancel: a connection closed while a call waits there throws "Channel has been shut
 * down" from that timer, an uncaught exception after close. This one keeps its pending retries; `stop()` (called
 * before the channel closes) ends each with the status it was about to retry, and no retry is scheduled after it.
 */
export interface CloseSafeRetries {
  interceptor: Interceptor;
  /** Fails every call waiting for a retry with its last status, and retries nothing from now on. */
  stop(): void;
  /** Calls waiting for a retry now (for tests and shutdown logs). */
  readonly waiting: number;
}

export function closeSafeRetries(options: GrpcRetryOptions = defaultGrpcRetryOptions()): CloseSafeRetries {
  let stopped = false;
  const pending = new Set<{ timer: NodeJS.Timeout; giveUp: () => void }>();

  const interceptor: Interceptor = (callOptions, nextCall) => {
    let sentMessage: unknown;
    let receivedMessage: unknown;
    let deliverMessage: ((message: unknown) => void) | undefined;
    const requester = new RequesterBuilder()
      .withStart((metadata: Metadata, outer, next) => {
        let attempt = 1;
        const listener = new ListenerBuilder()
          .withOnReceiveMessage((message, next) => {
            receivedMessage = message;
            deliverMessage = next;
          })
          .withOnReceiveStatus((firstStatus, finish) => {
            const settle = (status: StatusObject) => {
              // A retry's answer has no `next` of its own: it goes to the caller's listener directly.
              if (receivedMessage !== undefined) (deliverMessage ?? ((m: unknown) => outer.onReceiveMessage?.(m)))(receivedMessage);
              finish(status);
            };
            const onStatus = (status: StatusObject): void => {
              if (stopped || !options.retryableDecider(attempt, status)) return settle(status);
              const entry = {
                timer: setTimeout(
                  () => {
                    pending.delete(entry);
                    if (stopped) return settle(status);
                    attempt++;
                    const call = nextCall(callOptions);
                    call.start(metadata, {
                      onReceiveMessage: (message: unknown) => {
                        receivedMessage = message;
                      },
                      onReceiveStatus: onStatus,
                    });
                    call.sendMessage(sentMessage);
                    call.halfClose();
                  },
                  options.delayFunction(attempt, status),
                ),
                giveUp: () => settle({ ...status, details: `${status.details} (the Temporal connection closed before the retry)` }),
              };
              pending.add(entry);
            };
            onStatus(firstStatus);
          })
          .build();
        next(metadata, listener);
      })
      .withSendMessage((message, next) => {
        sentMessage = message;
        next(message);
      })
      .build();
    return new InterceptingCall(nextCall(callOptions), requester);
  };

  return {
    interceptor,
    stop() {
      stopped = true;
      for (const entry of pending) {
        clearTimeout(entry.timer);
        entry.giveUp();
      }
      pending.clear();
    },
    get waiting() {
      return pending.size;
    },
  };
}
