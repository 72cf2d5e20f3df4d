/**
 * The language the demo scripts write what people read in (the seed's layouts and demo appointment, the terminal
 * simulator's refusal reasons): `--lang pt-BR|es|en`, else the environment's locale (`LC_ALL`, then `LC_MESSAGES`,
 * then `LANG`, as POSIX orders them: `pt_BR.UTF-8` is pt-BR, `es_MX.UTF-8` es), else English.
 */
export const DEMO_LANGUAGES = ['pt-BR', 'es', 'en'] as const;
export type DemoLanguage = (typeof DEMO_LANGUAGES)[number];

export const LANG_USAGE = `--lang ${DEMO_LANGUAGES.join('|')} (default: from LANG, else en)`;

/** The demo language a POSIX locale name stands for (`pt_BR.UTF-8`, `es_MX`, `en_US.UTF-8`, `C`), or null for none of them. */
export function languageOfLocale(locale: string | undefined): DemoLanguage | null {
  const name = locale?.trim().split(/[.@]/)[0].toLowerCase();
  if (!name) return null;
  const primary = name.split(/[_-]/)[0];
  return primary === 'pt' ? 'pt-BR' : primary === 'es' ? 'es' : primary === 'en' ? 'en' : null;
}

/**
 * The language asked for: `--lang` when given (a usage error, exit 64, unless one of the three), else the first set
 * of LC_ALL, LC_MESSAGES and LANG (an empty one counts as unset), else en.
 */
export function demoLanguage(lang: string | undefined, env: Record<string, string | undefined> = process.env): DemoLanguage {
  if (lang !== undefined) {
    const given = DEMO_LANGUAGES.find((language) => language.toLowerCase() === lang.trim().toLowerCase());
    if (!given) {
      console.error(`--lang must be ${DEMO_LANGUAGES.join(', ')}, got "${lang}"`);
      process.exit(64);
    }
    return given;
  }
  const locale = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((value) => value !== undefined && value.trim() !== '');
  return languageOfLocale(locale) ?? 'en';
}

/** Words of each language, by the same keys. */
export type Words<K extends string> = Record<DemoLanguage, Record<K, string>>;

/** What the seed writes in the demo's language: its layouts' texts and names, and the demo appointment's summary. */
export const SEED_WORDS: Words<
  | 'appointment'
  | 'plate'
  | 'container'
  | 'arrive'
  | 'driver'
  | 'taxId'
  | 'licence'
  | 'trip'
  | 'to'
  | 'gatePass'
  | 'gate'
  | 'lane'
  | 'bay'
  | 'import'
  | 'scale'
  | 'showTicket'
  | 'followSigns'
  | 'valid'
  | 'cardName'
  | 'ticketName'
  | 'tripName'
  | 'summary'
> = {
  en: {
    appointment: 'Appointment',
    plate: 'Plate',
    container: 'Container',
    arrive: 'Arrive inside your window',
    driver: 'Driver',
    taxId: 'Tax id',
    licence: 'Licence',
    trip: 'Trip',
    to: 'To',
    gatePass: 'Gate pass',
    gate: 'Gate',
    lane: 'Lane',
    bay: 'Bay',
    import: 'Import',
    scale: 'Stop at the scale first',
    showTicket: 'Show this ticket at the gate',
    followSigns: 'Follow the signs to your bay',
    valid: 'Valid for this visit only.',
    cardName: 'Demo card',
    ticketName: 'Demo gate ticket',
    tripName: 'Demo trip card',
    summary: 'Import container pickup, berth 3',
  },
  'pt-BR': {
    appointment: 'Agendamento',
    plate: 'Placa',
    container: 'Contêiner',
    arrive: 'Chegue dentro do seu horário agendado',
    driver: 'Motorista',
    taxId: 'CPF',
    licence: 'CNH',
    trip: 'Viagem',
    to: 'Destino',
    gatePass: 'Passe de entrada',
    gate: 'Portão',
    lane: 'Faixa',
    bay: 'Doca',
    import: 'Importação',
    scale: 'Pare primeiro na balança',
    showTicket: 'Mostre este ticket no portão',
    followSigns: 'Siga a sinalização até a sua doca',
    valid: 'Válido somente para esta visita.',
    cardName: 'Cartão de demonstração',
    ticketName: 'Ticket de portão de demonstração',
    tripName: 'Cartão de viagem de demonstração',
    summary: 'Retirada de contêiner de importação, berço 3',
  },
  // Spanish as Latin American terminals write it: placa, operador, RFC.
  es: {
    appointment: 'Cita',
    plate: 'Placa',
    container: 'Contenedor',
    arrive: 'Llegue dentro de su horario asignado',
    driver: 'Operador',
    taxId: 'RFC',
    licence: 'Licencia',
    trip: 'Viaje',
    to: 'Destino',
    gatePass: 'Pase de acceso',
    gate: 'Puerta',
    lane: 'Carril',
    bay: 'Andén',
    import: 'Importación',
    scale: 'Pase primero a la báscula',
    showTicket: 'Muestre este ticket en la puerta',
    followSigns: 'Siga la señalización hasta su andén',
    valid: 'Válido solo para esta visita.',
    cardName: 'Tarjeta de demostración',
    ticketName: 'Ticket de acceso de demostración',
    tripName: 'Tarjeta de viaje de demostración',
    summary: 'Retiro de contenedor de importación, muelle 3',
  },
};

/** The terminal simulator's refusal reasons, which the driver app shows as the terminal gave them. */
export const REFUSALS: Record<DemoLanguage, { closed: string; plate: (plate: string) => string }> = {
  en: { closed: 'The gate is closed', plate: (plate) => `Plate ${plate} is not allowed at this gate` },
  'pt-BR': { closed: 'O portão está fechado', plate: (plate) => `A placa ${plate} não tem acesso por este portão` },
  es: { closed: 'La puerta está cerrada', plate: (plate) => `La placa ${plate} no tiene acceso por esta puerta` },
};
