/**
 * Group commit: callers that arrive while a batch is being written wait for the next batch, and
 * each batch is ONE statement. Under load this turns N round trips into one without delaying a
 * lone request (a batch starts as soon as the previous one finishes). Every caller still gets
 * its own result only after its row is written.
 */
export function createGroupCommit<Input, Output>(options: {
  /** writes the batch; returns one output per input, in order */
  write(inputs: Input[]): Promise<Output[]>;
  maxBatch?: number;
}): (input: Input) => Promise<Output> {
  const maxBatch = options.maxBatch ?? 200;
  let queue: { input: Input; resolve: (output: Output) => void; reject: (error: unknown) => void }[] = [];
  let writing = false;

  const flush = async (): Promise<void> => {
    if (writing || queue.length === 0) return;
    writing = true;
    const batch = queue.slice(0, maxBatch);
    queue = queue.slice(batch.length);
    try {
      const outputs = await options.write(batch.map((item) => item.input));
      batch.forEach((item, index) => item.resolve(outputs[index] as Output));
    } catch (error) {
      for (const item of batch) item.reject(error);
    } finally {
      writing = false;
      if (queue.length > 0) void flush();
    }
  };

  return (input) =>
    new Promise<Output>((resolve, reject) => {
      queue.push({ input, resolve, reject });
      void flush();
    });
}
