/**
 * The face of module taxes: tax regions, the tax arithmetic, tax providers and the tax report.
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export {
  allocateDiscount,
  divideHalfUp,
  jurisdictionOf,
  matchRegion,
  noTax,
  normalizeRegion,
  proportionalShare,
  rateFor,
  sumTax,
  taxOf,
  taxWithRule,
  type TaxAddress,
  type TaxLine,
  type TaxRegionRule,
  type TaxResult,
  type TaxableInput
} from './compute.js';
export { taxesModule } from './module.js';
export { TAX_PROVIDERS, TAX_PROVIDER_REGISTRY, taxProviderOf, taxProviderUnavailable, type TaxProvider, type TaxProviderName, type TaxRequest } from './providers.js';
export { cachedTaxRegions, createTaxRegion, deleteTaxRegion, getTaxRegion, listTaxRegions, updateTaxRegion, type TaxRegionInput, type TaxRegionRow } from './regions.js';
export { TAX_REPORT_COLUMNS, runTaxReport, startTaxReport, type TaxReportInput, type TaxReportResult } from './report.js';
export { withTaxView } from './display.js';
