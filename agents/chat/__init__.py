"""The conversational agent for underwriters, with session memory.

async with ChatSession(memory, agent_id="athena", user_id="jane") as chat:
    reply = await chat.send("Can we write a BOP risk with 22 employees?")
# leaving the session enqueues its transcript for the ingestion worker
"""
