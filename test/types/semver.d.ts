// The part of semver's API the tests use; the package ships no types and @types/semver is not a dependency.
declare module 'semver' {
  export interface SemVer {
    readonly version: string;
  }
  /** The lowest version that satisfies the range, or null if none can. */
  export function minVersion(range: string): SemVer | null;
  export function satisfies(version: string | SemVer, range: string): boolean;
  const semver: { minVersion: typeof minVersion; satisfies: typeof satisfies };
  export default semver;
}
