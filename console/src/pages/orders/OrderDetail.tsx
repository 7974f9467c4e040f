export function OrderDetail() {
  return <p>OrderDetail</p>;
}
