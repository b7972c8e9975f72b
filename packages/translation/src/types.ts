/** The engine interface every translation consumer (the outputs service's stage, the bench) uses. */

export type EngineKind = 'apertium' | 'libretranslate' | 'deepl';

/** What a room's writer chose for a target: the engine, its address and key (none for Apertium). */
export interface EngineSettings {
  kind: EngineKind;
  /** libretranslate: required; deepl: default from the key (`:fx` -> api-free.deepl.com); apertium: default `apertiumUrl`. */
  url?: string;
  /** deepl: required; libretranslate: its optional `api_key`. Never logged, never in an error. */
  key?: string;
}

/** A target language an engine offers. */
export interface LanguageOption {
  /** BCP-47, e.g. `es`, `pt-BR`, `ca-valencia`. */
  code: string;
  /** Its English name. */
  name: string;
}

export interface TranslationRequest {
  /** BCP-47 of the text's language. */
  source: string;
  /** BCP-47 of the wanted language. */
  target: string;
  texts: string[];
  /** Text that came before (not translated, only informs the translation), where the engine takes it (DeepL). */
  context?: string;
}

export interface TranslationEngine {
  readonly kind: EngineKind;
  /** Targets the engine reports for `source` (`/listPairs`, `/languages`, `/v2/languages?type=target`), as BCP-47. */
  targets(source: string, signal?: AbortSignal): Promise<LanguageOption[]>;
  /** `texts` translated in order (one request when the engine batches). */
  translate(request: TranslationRequest, signal?: AbortSignal): Promise<string[]>;
}

export interface CreateEngineOptions {
  /** `host:port` entries the operator allows besides the hosted APIs (OUTPUTS_ALLOWED_HOSTS). */
  allowedHosts: ReadonlySet<string>;
  /** The self-hosted Apertium APy (OUTPUTS_APERTIUM_URL); its host:port is allowed by being configured. */
  apertiumUrl: string;
  /** One engine call, from the request to the last byte of its answer. */
  timeoutMs: number;
  /** For tests; the global fetch otherwise. */
  fetch?: typeof fetch;
}
