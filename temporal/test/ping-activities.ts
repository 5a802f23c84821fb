export interface PingDeps {
  workerId: string;
}

export function createPingActivities(deps: PingDeps) {
  return {
    async ping(name: string): Promise<string> {
      return `pong ${name} from ${deps.workerId}`;
    },
  };
}

export type PingActivities = ReturnType<typeof createPingActivities>;
