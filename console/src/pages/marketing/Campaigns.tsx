export function Campaigns() {
  return <p>Campaigns</p>;
}
