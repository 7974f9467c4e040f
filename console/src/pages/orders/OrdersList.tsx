export function OrdersList() {
  return <p>OrdersList</p>;
}
