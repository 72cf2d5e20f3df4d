import { admissibleWindow } from '../records/record-definition.js';
import { plateFold, plateKey } from './plates.js';

/*
 * The matching of a plate read to a terminal's appointments, and what each stage does with the appointment it
 * matched (docs/gate.md#matching, docs/gate.md#stages). Pure: the gate service reads the appointments and acts.
 */

export const GATE_STAGES = ['arrival', 'entry', 'exit'] as const;
export type GateStage = (typeof GATE_STAGES)[number];

/** Why a read is referred to a clerk, in the order they are tried: the first that applies is the reason. */
export const REFERRAL_REASONS = [
  'ambiguous',
  'low_confidence',
  'wrong_status',
  'terminal_rejected',
  'lookalike',
  'outside_window',
  'no_match',
] as const;
export type ReferralReason = (typeof REFERRAL_REASONS)[number];

/** One reading of a plate: the read's own, or one of the camera's alternatives. */
export interface Reading {
  plate: string;
  confidence: number;
}

export interface PlateRead {
  plate: string;
  confidence: number;
  candidates?: Reading[];
  read_at: Date;
}

/** What the matching reads of an appointment. */
export interface Matchable {
  id: string;
  status: string;
  license_plate: string | null;
  window_start: Date | null;
  window_end: Date | null;
  start_tolerance: number;
  end_tolerance: number;
}

/** Statuses a read never matches: the appointment is gone or done. */
const CLOSED = ['DELETED', 'COMPLETED'];

export type Decision<A> =
  { kind: 'match'; appointment: A; confidence: number } | { kind: 'refer'; reason: ReferralReason; candidates: A[] };

/** The read's plate, then each of its alternatives: every reading is tried. */
export const readingsOf = (read: Pick<PlateRead, 'plate' | 'confidence' | 'candidates'>): Reading[] => [
  { plate: read.plate, confidence: read.confidence },
  ...(read.candidates ?? []),
];

/** The keys (exact and Mercosul) and folded keys (look-alikes) of a read's readings, to find its appointments by. */
export function searchKeys(read: Pick<PlateRead, 'plate' | 'confidence' | 'candidates'>): { keys: string[]; folds: string[] } {
  const readings = readingsOf(read);
  return {
    keys: [...new Set(readings.map((r) => plateKey(r.plate)))],
    folds: [...new Set(readings.map((r) => plateFold(r.plate)))],
  };
}

/** Whether the appointment's admissible window (tolerances included; none: always) holds the moment. */
export function admits(appointment: Matchable, at: Date): boolean {
  const { from, until } = admissibleWindow(appointment);
  return (!from || from <= at) && (!until || at <= until);
}

/**
 * Matches a read to appointments (those of its terminal, as found by `searchKeys`; others are ignored). An
 * appointment matches a reading exactly (or by Mercosul) when their keys are equal, as a look-alike when only their
 * folded keys are. Eligible: not DELETED or COMPLETED, its admissible window holding `read_at`.
 *
 * `match` when exactly one eligible appointment matches exactly, by a reading of confidence at least `autoConfidence`
 * (the best such reading's), and the stage can act on its status. Otherwise the first reason that applies:
 * `ambiguous` (several eligible match exactly), `low_confidence`, `wrong_status` (the stage cannot act on it), then
 * `lookalike` (only look-alikes are eligible), `outside_window` (exact matches outside their window), `no_match`.
 * (`terminal_rejected` comes later, from the handshake.) Candidates: every appointment that matched in any way, the
 * eligible exact ones first, then eligible look-alikes, then those outside their window.
 */
export function matchRead<A extends Matchable>(read: PlateRead, stage: GateStage, appointments: A[], autoConfidence: number): Decision<A> {
  const readings = readingsOf(read);
  const found = appointments
    .filter((a) => a.license_plate !== null && !CLOSED.includes(a.status))
    .map((appointment) => {
      const key = plateKey(appointment.license_plate!);
      const fold = plateFold(appointment.license_plate!);
      const exact = readings.filter((r) => plateKey(r.plate) === key);
      const lookalike = exact.length === 0 && readings.some((r) => plateFold(r.plate) === fold);
      return {
        appointment,
        exact: exact.length > 0,
        lookalike,
        confidence: Math.max(0, ...exact.map((r) => r.confidence)),
        inside: admits(appointment, read.read_at),
      };
    })
    .filter((m) => m.exact || m.lookalike);
  const rank = (m: (typeof found)[number]) => (m.inside ? (m.exact ? 0 : 1) : m.exact ? 2 : 3);
  const candidates = [...found].sort((a, b) => rank(a) - rank(b)).map((m) => m.appointment);
  const refer = (reason: ReferralReason): Decision<A> => ({ kind: 'refer', reason, candidates });

  const eligible = found.filter((m) => m.exact && m.inside);
  if (eligible.length > 1) return refer('ambiguous');
  if (eligible.length === 1) {
    const [{ appointment, confidence }] = eligible;
    if (confidence < autoConfidence) return refer('low_confidence');
    if (planStage(stage, appointment.status) === null) return refer('wrong_status');
    return { kind: 'match', appointment, confidence };
  }
  if (found.some((m) => m.lookalike && m.inside)) return refer('lookalike');
  if (found.some((m) => m.exact)) return refer('outside_window');
  return refer('no_match');
}

export type StampColumn = 'arrived_at' | 'entered_at' | 'departed_at';

/** What a stage does to an appointment of a status: the handshake first, a move, and the stamp it sets. */
export interface StagePlan {
  handshake: boolean;
  move: 'ON_GOING' | 'COMPLETED' | null;
  stamp: StampColumn;
}

/**
 * The stages, per status (docs/gate.md#stages); null: the stage cannot act on it (`wrong_status`).
 * - arrival: SCHEDULED is checked in through the handshake; CHECKED_IN and ON_GOING match with no move.
 * - entry: SCHEDULED runs the handshake, then ON_GOING; CHECKED_IN → ON_GOING; ON_GOING matches with no move.
 * - exit: CHECKED_IN or ON_GOING → COMPLETED; SCHEDULED cannot leave before it was checked in.
 */
export function planStage(stage: GateStage, status: string): StagePlan | null {
  switch (stage) {
    case 'arrival':
      if (status === 'SCHEDULED') return { handshake: true, move: null, stamp: 'arrived_at' };
      return status === 'CHECKED_IN' || status === 'ON_GOING' ? { handshake: false, move: null, stamp: 'arrived_at' } : null;
    case 'entry':
      if (status === 'SCHEDULED') return { handshake: true, move: 'ON_GOING', stamp: 'entered_at' };
      if (status === 'CHECKED_IN') return { handshake: false, move: 'ON_GOING', stamp: 'entered_at' };
      return status === 'ON_GOING' ? { handshake: false, move: null, stamp: 'entered_at' } : null;
    case 'exit':
      return status === 'CHECKED_IN' || status === 'ON_GOING' ? { handshake: false, move: 'COMPLETED', stamp: 'departed_at' } : null;
  }
}
