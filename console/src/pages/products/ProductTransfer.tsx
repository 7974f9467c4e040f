import { Anchor, Stack, Title } from '@mantine/core';
import { Link } from 'react-router-dom';
import { ProductExport } from './ProductExport';
import { ProductImport } from './ProductImport';

/** Products in and out as Shopify CSV files: an import with its progress and row errors, an export to download. */
export function ProductTransfer() {
  return (
    <Stack>
      <Title order={1}>Import and export products</Title>
      <Anchor component={Link} to="/products" w="fit-content">
        Back to products
      </Anchor>
      <ProductImport />
      <ProductExport />
    </Stack>
  );
}
