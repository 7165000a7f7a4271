// The shared UI kit (docs/dashboard.md): every page builds from these.
export { Button, buttonClasses } from './button';
export { Field } from './field';
export { FieldError } from './field-error';
export { Input, Textarea } from './input';
export { Card, CardHeader, CardTitle, CardDescription, CardContent, CardFooter } from './card';
export { Badge, type BadgeTone } from './badge';
export { Alert } from './alert';
export { Dialog, DialogTrigger, DialogContent } from './dialog';
export { Select } from './select';
export { RadioGroup, RadioCard } from './radio-group';
export { PageHeader } from './page-header';
export { Tabs, TabsList, TabsTrigger, TabsContent } from './tabs';
export { LocalTime } from './local-time';
export { Form } from './hydrated-form';
