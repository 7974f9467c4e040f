/** A rate-limit bucket's count in a window and in the one before (read as a sliding window). */
export interface WindowCounts {
  current: number;
  previous: number;
}
