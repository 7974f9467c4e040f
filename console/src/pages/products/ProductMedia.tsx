import { Button, Card, FileInput, Group, Image, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, authHeaders } from '../../api/client';
import { ApiError, fieldError, unwrap, type ApiErrorBody } from '../../api/errors';
import type { components } from '../../api/schema';
import { FormError } from '../../components/FormError';

type Media = components['schemas']['Media'];

/** The console and the API share an origin: images load from their path (the CSP allows img-src 'self' only). */
const sameOrigin = (url: string) => new URL(url, location.origin).pathname;

/** A saved product's images: upload one (multipart `file` + `alt` to /admin/store/media, then attach by mediaIds), remove one. */
export function ProductMedia({ productId, media }: { productId: string; media: Media[] }) {
  const [file, setFile] = useState<File | null>(null);
  const [alt, setAlt] = useState('');
  const queryClient = useQueryClient();
  const attach = async (mediaIds: string[]) => {
    const product = unwrap(await api.PATCH('/api/v1/admin/products/{productId}', { params: { path: { productId } }, body: { mediaIds } })).data.product;
    queryClient.setQueryData(['product', productId], product);
    return product;
  };
  const upload = useMutation({
    mutationFn: async (image: File) => {
      const form = new FormData();
      form.append('file', image, image.name);
      if (alt) form.append('alt', alt);
      const response = await fetch('/api/v1/admin/store/media', { method: 'POST', headers: authHeaders(), body: form });
      const body = (await response.json()) as { data?: { media: Media } } & ApiErrorBody;
      if (!response.ok || !body.data) throw new ApiError(response.status, body.error?.code ?? 'error', body.error?.message ?? 'Upload failed', body.error?.details);
      return attach([...media.map((m) => m.id), body.data.media.id]);
    },
    onSuccess: () => (setFile(null), setAlt(''))
  });
  const remove = useMutation({ mutationFn: (mediaId: string) => attach(media.filter((m) => m.id !== mediaId).map((m) => m.id)) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (file) upload.mutate(file);
  };
  return (
    <section aria-labelledby="media-title">
      <Stack>
        <Title order={2} size="h4" id="media-title">
          Images
        </Title>
        {media.length === 0 && <Text>No images yet.</Text>}
        <SimpleGrid cols={{ base: 2, md: 4 }}>
          {media.map((m) => (
            <Card key={m.id} withBorder padding="xs" data-testid="product-image">
              <Image src={sameOrigin(m.url)} alt={m.alt ?? ''} h={120} fit="contain" />
              <Group justify="space-between" mt="xs">
                <Text size="xs">{m.width && m.height ? `${m.width}×${m.height}` : m.contentType}</Text>
                <Button size="xs" variant="default" onClick={() => remove.mutate(m.id)} aria-label={`Remove image ${m.alt ?? m.id}`}>
                  Remove
                </Button>
              </Group>
            </Card>
          ))}
        </SimpleGrid>
        {/* Not a nested <form>: the product form is around this section. */}
        <Group align="flex-end">
          <FileInput label="Image file" accept="image/jpeg,image/png,image/webp,image/gif,image/avif" value={file} onChange={setFile} error={fieldError(upload.error, 'file')} clearable clearButtonProps={{ 'aria-label': 'Clear image file' }} />
          <TextInput label="Alternative text" value={alt} onChange={(e) => setAlt(e.currentTarget.value)} error={fieldError(upload.error, 'alt')} />
          <Button onClick={submit} disabled={!file} loading={upload.isPending}>
            Upload image
          </Button>
        </Group>
        <FormError error={upload.error ?? remove.error} fields={['file', 'alt']} />
      </Stack>
    </section>
  );
}
