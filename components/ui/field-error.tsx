/** An inline error under a control or a row of controls (the same look as Field's own error); renders nothing without a message. */
export function FieldError({ id, message }: { id?: string; message?: string | null }) {
  if (!message) return null;
  return (
    <p id={id} role="alert" className="text-sm text-danger">
      {message}
    </p>
  );
}
