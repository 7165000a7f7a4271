/** Public surface of the pure scheduling core. */
export * from './types';
export { isSacred } from './sacred';
export {
  workingIntervals,
  isWorkingDay,
  localDayBounds,
  hardBlockIntervals,
  bookedMinutesOnLocalDay,
  
  
} from './timeRules';
export { parseRRule, RRuleError } from './rrule';
export { awayAt, outOfOfficeAt } from './timeRules';
export { validateOwnerRules, storedHardBlocks, blocksWithCheckpoints, type RuleIssue } from './validate';
export { canonicalTimeZone, closeTimeZones, supportedTimeZones, timeZoneName } from './timeZone';
export { localIso, localSpan, type LocalSpan } from './localSpan';
export { compatibleInstant } from './localTime';
export { civilFromDays, daysFromCivil } from './civil';
export { capPerDay, distinctSlots, localDay } from './spread';
export * from './limits';
export { arbitrate, nearestAlternative, warningsFor, ALTERNATIVES_RADIUS_MS, VERDICT_CLAIMS_MARGIN_MS } from './arbitrate';
export { reachOf, bufferMs, MAX_BUFFER_MS } from './buffers';
export { evaluateSlot } from './evaluate';
export {
  searchSlots,
  nextAvailable,
  findHoldStretch,
  findHoldStretches,
  windowTooNarrow,
  DEFAULT_STEP_MINUTES,
  DEFAULT_MAX_RESULTS,
  type SearchSlotsParams,
  
  
  
} from './slots';
export {
  decideGroupSlot,
  searchGroupSlots,
  explainNoGroupSlots,
  nextGroupSlot,
  groupMember,
  groupMembers,
  lastStartOnFacts,
  
  type GroupMember,
  type GroupMemberFacts,
  type GroupSlot,
  
  
  
  
  
} from './group';
