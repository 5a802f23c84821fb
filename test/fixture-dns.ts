import dns2 from 'dns2';

/** One name's records in a fixture zone. */
export interface FixtureRecords {
  txt?: string[];
  cname?: string;
}

/**
 * A DNS server for tests (never in production code): answers TXT and CNAME questions from
 * `zone` (names lower case, no trailing dot), NXDOMAIN for a name it does not hold. The doctor
 * reads it through DNS_RESOLVER (`address`).
 */
export async function startFixtureDns(zone: Readonly<Record<string, FixtureRecords>>): Promise<{ address: string; close(): Promise<void> }> {
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const name = (question?.name ?? '').toLowerCase().replace(/\.$/, '');
      const records = zone[name];
      if (records === undefined) response.header.rcode = Packet.RCODE.NXDOMAIN;
      else if (question?.type === Packet.TYPE.TXT)
        for (const text of records.txt ?? []) response.answers.push(Packet.createResourceFromQuestion(question, { ttl: 60, data: text }));
      else if (question?.type === Packet.TYPE.CNAME && records.cname !== undefined)
        response.answers.push(Packet.createResourceFromQuestion(question, { ttl: 60, domain: records.cname }));
      void send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  if (addresses.udp === undefined) throw new Error('the fixture DNS server has no UDP address');
  return { address: `127.0.0.1:${addresses.udp.port}`, close: () => server.close() };
}
