export function Jobs() {
  return <p>Jobs</p>;
}
