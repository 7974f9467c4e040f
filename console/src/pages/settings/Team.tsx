export function Team() {
  return <p>Team</p>;
}
