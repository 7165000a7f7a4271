// The shared UI kit (docs/dashboard.md): every page builds from these.
export { cn } from './cn';
export { Button, buttonClasses, type ButtonProps } from './button';
export { Field, useFieldControl } from './field';
export { Label } from './label';
export { Input, Textarea } from './input';
export { Card, CardHeader, CardTitle, CardDescription, CardContent, CardFooter } from './card';
export { Badge, type BadgeTone } from './badge';
export { Alert } from './alert';
export { Dialog, DialogTrigger, DialogClose, DialogContent } from './dialog';
export { Select, SelectTrigger, SelectValue, SelectContent, SelectItem } from './select';
export { RadioGroup, RadioCard } from './radio-group';
export { PageHeader } from './page-header';
export { VisuallyHidden } from './visually-hidden';
