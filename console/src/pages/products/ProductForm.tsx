import { Button, Group, NativeSelect, Stack, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FormError } from '../../components/FormError';
import { OptionsEditor } from './OptionsEditor';
import { InventoryPanel } from './InventoryPanel';
import { ProductMedia } from './ProductMedia';
import { bodyOf, draftOf, emptyDraft, variantsFromOptions, type ProductDraft } from './product-draft';
import { VariantsEditor } from './VariantsEditor';

/** Create (/products/new) or edit (/products/:productId) a product with its options, variants and stock. */
export function ProductForm() {
  const { productId } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<ProductDraft>(emptyDraft);
  const existing = useQuery({
    queryKey: ['product', productId],
    enabled: Boolean(productId),
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/products/{productId}', { params: { path: { productId: productId! } } })).data.product
  });
  useEffect(() => {
    if (existing.data) setDraft(draftOf(existing.data));
  }, [existing.data]);
  const save = useMutation({
    mutationFn: async () => {
      const body = bodyOf(draft);
      if (productId) return unwrap(await api.PATCH('/api/v1/admin/products/{productId}', { params: { path: { productId } }, body })).data.product;
      return unwrap(await api.POST('/api/v1/admin/products', { body })).data.product;
    },
    onSuccess: (product) => {
      void queryClient.invalidateQueries({ queryKey: ['products'] });
      queryClient.setQueryData(['product', product.id], product);
      navigate(`/products/${product.id}`, { replace: true, state: { saved: true } });
    }
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const remove = useMutation({
    mutationFn: async () => {
      const result = await api.DELETE('/api/v1/admin/products/{productId}', { params: { path: { productId: productId! } } });
      if (!result.response.ok) unwrap(result as never);
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['products'] });
      navigate('/products', { replace: true });
    }
  });
  const set = (patch: Partial<ProductDraft>) => setDraft((old) => ({ ...old, ...patch }));
  // A stock adjustment moves the figure the form would save: keep the form's copy in step.
  const adjusted = (variantId: string, inventoryQuantity: number) =>
    setDraft((old) => ({ ...old, variants: old.variants.map((variant) => (variant.id === variantId ? { ...variant, inventoryQuantity: String(inventoryQuantity) } : variant)) }));
  return (
    <Stack maw={900}>
    <form onSubmit={submit}>
      <Stack>
        <Title order={1}>{productId ? draft.title || 'Product' : 'New product'}</Title>
        <TextInput label="Title" required value={draft.title} onChange={(e) => set({ title: e.currentTarget.value })} error={fieldError(save.error, 'title')} />
        <Textarea label="Description" autosize minRows={3} value={draft.description} onChange={(e) => set({ description: e.currentTarget.value })} error={fieldError(save.error, 'description')} />
        <NativeSelect
          label="Status"
          value={draft.status}
          onChange={(e) => set({ status: e.currentTarget.value as ProductDraft['status'] })}
          data={[
            { value: 'draft', label: 'Draft' },
            { value: 'active', label: 'Active' },
            { value: 'archived', label: 'Archived' }
          ]}
        />
        <Title order={2} size="h4">
          Options
        </Title>
        <OptionsEditor options={draft.options} onChange={(options) => set({ options })} onGenerate={() => set({ variants: variantsFromOptions(draft.options, draft.variants) })} />
        <Title order={2} size="h4">
          Variants
        </Title>
        <VariantsEditor variants={draft.variants} onChange={(variants) => set({ variants })} error={save.error} />
        {productId && existing.data && <ProductMedia productId={productId} media={existing.data.media} />}
        <FormError error={save.error} fields={['title', 'description']} />
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save product
          </Button>
          {save.isSuccess && <span role="status">Saved</span>}
        </Group>
        {productId && (
          <ConfirmButton
            label="Delete product"
            question={`Delete ${draft.title || 'this product'}? Orders keep their lines.`}
            confirm="Yes, delete the product"
            onConfirm={() => remove.mutate()}
            pending={remove.isPending}
            error={remove.error}
          />
        )}
      </Stack>
    </form>
    {productId && existing.data && <InventoryPanel product={existing.data} onAdjusted={adjusted} />}
    </Stack>
  );
}
