/**
 * What `waymark client generate` writes into: an interface per catalog, empty here, merged by the
 * generated `.d.ts` (module augmentation). With it, a catalogued event's properties and a
 * template's data are checked; names it does not list take any JSON object, as the api does.
 */

/** Event name → its properties, from the instance's event catalog. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the generated declaration
export interface WaymarkEvents {}

/** Template key → the data its props schema accepts. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the generated declaration
export interface WaymarkTemplates {}

export type JsonObject = Record<string, unknown>;

/** A catalogued name, or any other string (the editor still offers the catalogued ones). */
export type EventName = keyof WaymarkEvents | (string & {});
export type TemplateKey = keyof WaymarkTemplates | (string & {});

export type EventProperties<N> = N extends keyof WaymarkEvents ? WaymarkEvents[N] : JsonObject;
export type TemplateData<K> = K extends keyof WaymarkTemplates ? WaymarkTemplates[K] : JsonObject;
