"""What a client may send to `POST /v1/chat/completions`, checked and mapped to a `TurnRequest`.

The upstream request is built by ChatService alone, so nothing a client sends reaches vLLM unless it is
mapped here on purpose. Fields known to be dangerous there are refused with a 400 naming the field rather
than dropped, so a client learns why its setting had no effect. Tools, tool choice and structured-output
requests are checked for shape and passed on in their OpenAI (or vLLM) form only: vLLM's `structured_outputs`
as exactly one constraint of bounded size, since the engine compiles it (a grammar, a regex) on the CPU every
user shares.

The new input of a request is its last user message, or the tool results at its end (answering the model's
tool calls). Client `system`/`developer` messages become the client's system prompt.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, cast

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from webapp.turn.events import HistoryMessage, ToolResult, TurnRequest
from webapp.turn.service import ChatService
from webapp.upstream.profiles import Mode

# Fields that would let a client change what vLLM renders or where the app connects (Jinja injection,
# multimodal-processor DoS, key leaks). `chat_template_kwargs` is checked key by key.
REFUSED_FIELDS = (
    "chat_template",
    "media_io_kwargs",
    "mm_processor_kwargs",
    "api_base",
    "base_url",
    "api_key",
    "api_version",
    "api_type",
    "organization",
    "extra_body",
    "extra_headers",
)
SAMPLING_FIELDS = ("temperature", "top_p", "top_k", "presence_penalty", "frequency_penalty", "seed", "stop")
# Passed to the model server as validated here: tool calling and structured output.
UPSTREAM_FIELDS = ("tools", "tool_choice", "parallel_tool_calls", "response_format", "structured_outputs")
MAX_TOOLS = 128  # more than any IDE sends; each one is rendered into the prompt
# vLLM checks each stop string against every new token, and compiles a constraint before the first: bounded so
# one request cannot hold the engine's CPU (5,000 stop strings and an 800 kB grammar were forwarded as sent).
MAX_STOPS = 16
MAX_STOP_CHARS = 256
MAX_PATTERN_CHARS = 4_096  # a regex
MAX_GRAMMAR_CHARS = 65_536  # an EBNF/Lark grammar, or a JSON schema as JSON
MAX_CHOICES = 256
MAX_CHOICE_CHARS = 1_024
INT64 = 2**63


class ApiError(Exception):
    """A request the API answers with an OpenAI-style error body: HTTP status, message, code, parameter."""

    def __init__(self, status: int, message: str, code: str, param: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.code, self.param = status, message, code, param


class ImageUrl(BaseModel):
    url: str


class ContentPart(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: str
    text: str | None = None
    image_url: ImageUrl | str | None = None


class FunctionCall(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str = Field(pattern=r"^[A-Za-z0-9_.:-]{1,128}$")
    arguments: str = ""


# Call ids are rendered into some chat templates (Kimi: "## Return of <id>"): plain characters only.
CALL_ID = r"^[A-Za-z0-9_.:-]{1,128}$"


class ToolCallIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str = Field(pattern=CALL_ID)
    type: Literal["function"] = "function"
    function: FunctionCall


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[ContentPart] | None = None
    tool_calls: list[ToolCallIn] | None = None
    tool_call_id: str | None = Field(default=None, pattern=CALL_ID)


class FunctionDefinition(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str = Field(pattern=r"^[A-Za-z0-9_.:-]{1,128}$")
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None


class Tool(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["function"]
    function: FunctionDefinition


class ToolName(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str = Field(pattern=r"^[A-Za-z0-9_.:-]{1,128}$")


class NamedToolChoice(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["function"]
    function: ToolName  # a name, spelt as a tool's: some templates render the forced tool's name


def _bounded_schema(schema: dict[str, Any]) -> dict[str, Any]:
    if len(json.dumps(schema)) > MAX_GRAMMAR_CHARS:
        raise ValueError(f"a JSON schema of at most {MAX_GRAMMAR_CHARS} characters")
    return schema


Schema = Annotated[dict[str, Any], AfterValidator(_bounded_schema)]


class JsonSchemaFormat(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str = Field(min_length=1, max_length=128)
    description: str | None = None
    schema_: Schema | None = Field(default=None, alias="schema")
    strict: bool | None = None


class ResponseFormat(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["text", "json_object", "json_schema"]
    json_schema: JsonSchemaFormat | None = None


StopString = Annotated[str, Field(max_length=MAX_STOP_CHARS)]


class StructuredOutputs(BaseModel):
    """vLLM's `structured_outputs`: one constraint and its two switches. Not `structural_tag` (tool-call
    formats; tools go through `tools`), `whitespace_pattern` (a second regex) or internal keys (`_backend`)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    json_schema: Schema | None = Field(default=None, alias="json")
    regex: str | None = Field(default=None, min_length=1, max_length=MAX_PATTERN_CHARS)
    choice: list[Annotated[str, Field(max_length=MAX_CHOICE_CHARS)]] | None = Field(
        default=None, min_length=1, max_length=MAX_CHOICES
    )
    grammar: str | None = Field(default=None, min_length=1, max_length=MAX_GRAMMAR_CHARS)
    json_object: bool | None = None
    disable_any_whitespace: bool | None = None
    disable_additional_properties: bool | None = None

    @model_validator(mode="after")
    def _one_constraint(self) -> StructuredOutputs:
        kinds = (self.json_schema, self.regex, self.choice, self.grammar, self.json_object)
        if sum(kind is not None for kind in kinds) != 1:
            raise ValueError("exactly one of json, regex, choice, grammar or json_object")
        return self


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="ignore")
    include_usage: bool = False


class ChatCompletionRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")  # unknown harmless fields are ignored (never forwarded)
    model: str | None = None
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    n: int = 1
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    thinking: bool | None = None
    reasoning_effort: str | None = None
    chat_template_kwargs: dict[str, Any] | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)
    top_k: int | None = Field(default=None, ge=-1, lt=2**31)
    presence_penalty: float | None = Field(default=None, ge=-2, le=2)
    frequency_penalty: float | None = Field(default=None, ge=-2, le=2)
    seed: int | None = Field(default=None, ge=-INT64, lt=INT64)
    stop: StopString | Annotated[list[StopString], Field(max_length=MAX_STOPS)] | None = None
    tools: list[Tool] | None = Field(default=None, max_length=MAX_TOOLS)
    tool_choice: Literal["none", "auto", "required"] | NamedToolChoice | None = None
    parallel_tool_calls: bool | None = None
    response_format: ResponseFormat | None = None
    structured_outputs: StructuredOutputs | None = None  # vLLM's own form

    @property
    def include_usage(self) -> bool:
        return bool(self.stream_options and self.stream_options.include_usage)


def decode_body(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        raise ApiError(400, "The request body is not valid JSON.", "invalid_json") from None


def parse_request(body: Any, service: ChatService) -> ChatCompletionRequest:
    if not isinstance(body, dict):
        raise ApiError(400, "The request body must be a JSON object.", "invalid_json")
    for name in REFUSED_FIELDS:
        if name in body:
            raise ApiError(
                400, f"The field '{name}' is not accepted by this server.", f"{name}_not_allowed", name
            )
    try:
        request = ChatCompletionRequest.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise ApiError(400, f"Invalid request: {where}: {first['msg']}", "invalid_request", where) from None
    if request.n != 1:
        raise ApiError(400, "Only n=1 is supported.", "n_not_allowed", "n")
    if request.thinking and not service.profile.can_think:
        raise ApiError(
            400,
            f"The served model ({service.served_model}) does not think; send thinking=false or leave it out.",
            "thinking_not_supported",
            "thinking",
        )
    _check_template_kwargs(request.chat_template_kwargs or {}, service.profile.thinking_key)
    return request


def _check_template_kwargs(kwargs: dict[str, Any], thinking_key: str | None) -> None:
    """Only the profile's own thinking switch, as a boolean: any other key reaches vLLM's Jinja renderer."""
    for key, value in kwargs.items():
        if key != thinking_key or not isinstance(value, bool):
            field = f"chat_template_kwargs.{key}"
            hint = f" Only '{thinking_key}' (true/false) is accepted." if thinking_key else ""
            raise ApiError(
                400,
                f"The field '{field}' is not accepted by this server.{hint}",
                f"{field}_not_allowed",
                field,
            )


def mode_of(request: ChatCompletionRequest, service: ChatService) -> Mode:
    """`thinking`, else the profile's chat_template_kwargs key, else `reasoning_effort`, else the model default."""
    key = service.profile.thinking_key
    if request.thinking is not None:
        return "thinking" if request.thinking else "instant"
    if key and request.chat_template_kwargs and key in request.chat_template_kwargs:
        return "thinking" if request.chat_template_kwargs[key] else "instant"
    if request.reasoning_effort is not None:
        return "instant" if request.reasoning_effort in ("none", "minimal") else "thinking"
    return "thinking" if service.profile.can_think else "instant"  # thinking models think unless told not to


def text_and_images(message: ChatMessage) -> tuple[str, list[str]]:
    if message.content is None or isinstance(message.content, str):
        return message.content or "", []
    texts: list[str] = []
    urls: list[str] = []
    for index, part in enumerate(message.content):
        if part.type == "text" and part.text is not None:
            texts.append(part.text)
        elif part.type == "image_url" and part.image_url is not None:
            urls.append(part.image_url if isinstance(part.image_url, str) else part.image_url.url)
        else:
            raise ApiError(
                400,
                f"Content parts of type '{part.type}' are not supported; send text and image_url.",
                "unsupported_content_part",
                f"messages.content.{index}",
            )
    return "\n".join(texts), urls


def split_new_input(messages: list[ChatMessage]) -> tuple[list[ChatMessage], list[ChatMessage]]:
    """(earlier messages, the new input): the last user message, or the tool results that end the list."""
    end = len(messages)
    while end > 0 and messages[end - 1].role == "tool":
        end -= 1
    if end < len(messages):
        return messages[:end], messages[end:]
    if messages[-1].role != "user":
        raise ApiError(
            400,
            "The last message must be the user's new message or tool results.",
            "last_message_not_user",
            "messages",
        )
    return messages[:-1], messages[-1:]


def resent_history(earlier: list[ChatMessage]) -> list[HistoryMessage]:
    """The earlier turns of a new conversation, as text (images of earlier turns are not kept)."""
    history: list[HistoryMessage] = []
    for message in earlier:
        if message.role not in ("user", "assistant", "tool"):
            continue
        text, _ = text_and_images(message)
        calls = [c.model_dump() for c in message.tool_calls or ()] or None
        if text.strip() or calls or message.role == "tool":
            role = cast(Literal["user", "assistant", "tool"], message.role)
            history.append(HistoryMessage(role, text, calls, message.tool_call_id))
    return history


def tool_results(
    new: list[ChatMessage], earlier: list[ChatMessage], session_id: str | None
) -> list[ToolResult]:
    """The tool results of the new input; without a session each must answer a call the request shows."""
    results = []
    called = {c.id for m in earlier for c in m.tool_calls or ()}
    for index, message in enumerate(new):
        if message.role != "tool":
            continue
        if message.tool_call_id is None or (session_id is None and message.tool_call_id not in called):
            raise ApiError(
                400,
                "A tool message must name, in tool_call_id, a call the assistant made.",
                "unknown_tool_call_id",
                f"messages.{len(earlier) + index}.tool_call_id",
            )
        text, images = text_and_images(message)
        if images:
            raise ApiError(
                400,
                "Tool results are text; send images in a user message.",
                "unsupported_content_part",
                f"messages.{len(earlier) + index}.content",
            )
        results.append(ToolResult(message.tool_call_id, text))
    return results


def client_system_prompt(messages: list[ChatMessage]) -> str:
    parts = [text_and_images(m)[0] for m in messages if m.role in ("system", "developer")]
    return "\n\n".join(p for p in parts if p.strip())


def upstream_fields(request: ChatCompletionRequest) -> dict[str, Any]:
    return {
        name: _dumped(getattr(request, name))
        for name in UPSTREAM_FIELDS
        if getattr(request, name) is not None
    }


def _dumped(value: Any) -> Any:
    """As validated: only the fields the models above know, in their wire spelling."""
    if isinstance(value, BaseModel):
        return value.model_dump(exclude_none=True, by_alias=True)
    if isinstance(value, list):
        return [_dumped(item) for item in value]
    return value


def turn_request(
    request: ChatCompletionRequest, service: ChatService, owner: str, session_id: str | None
) -> TurnRequest:
    earlier, new = split_new_input(request.messages)
    text, image_urls = text_and_images(new[0]) if new[0].role == "user" else ("", [])
    max_tokens = request.max_completion_tokens or request.max_tokens
    sampling = {
        name: getattr(request, name) for name in SAMPLING_FIELDS if getattr(request, name) is not None
    }
    return TurnRequest(
        owner=owner,
        text=text,
        client="api",
        session_id=session_id,
        image_urls=image_urls,
        mode=mode_of(request, service),
        sampling=sampling,
        # With a session, the stored conversation is the history.
        history=resent_history(earlier) if session_id is None else (),
        tool_results=tool_results(new, earlier, session_id),
        system_prompt=client_system_prompt(request.messages),
        upstream_fields=upstream_fields(request),
        max_tokens=min(max_tokens, service.options.max_tokens_cap) if max_tokens else None,
    )
